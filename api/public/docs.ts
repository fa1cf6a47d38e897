// The API reference: GET /docs renders the OpenAPI document (GET /api/v1/openapi.json, public) with
// Swagger UI, served from the swagger-ui-dist package in node_modules (no CDN: the page works on a
// machine without internet access). The page's own script is a static file too, so a strict
// Content-Security-Policy can forbid inline scripts.

import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';

const DOCS_PATH = '/docs';
const DOCUMENT_URL = '/api/v1/openapi.json';
/** The Swagger UI files a page needs; nothing else of the package is served. */
const ASSETS: ReadonlySet<string> = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Exchange API reference</title>
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(DOCUMENT_URL)}, dom_id: '#reference', deepLinking: true });\n`;

export function docsRouter(): Router {
  const router = Router();
  const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const headers = (res: Response) =>
    res.set({
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy':
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    });
  router.get(DOCS_PATH, (_req: Request, res: Response) => {
    headers(res).type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/init.js`, (_req: Request, res: Response) => {
    headers(res).type('application/javascript').send(INIT);
  });
  const assets = express.static(distDir, { index: false, fallthrough: false, maxAge: '1d' });
  router.get(`${DOCS_PATH}/assets/:file`, (req: Request, res: Response, next) => {
    if (!ASSETS.has(String(req.params.file))) {
      res.status(404).json({ error: 'Not found' });
      return;
    }
    req.url = `/${req.params.file}`;
    assets(req, res, next);
  });
  return router;
}
