// The reference of bench:api: an express 5 hello-world (GET answering a small JSON body), started
// as a child process with the same node flags as the service; prints its port when listening.
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
