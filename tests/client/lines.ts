// Runs a program as a user would (a child process) and hands out its stdout JSON lines.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';

export interface Program {
  child: ChildProcessWithoutNullStreams;
  /** The next JSON line that matches (earlier lines are skipped). */
  next(match?: (line: any) => boolean): Promise<any>;
  stderr(): string;
  exited: Promise<number | null>;
}

export function run(args: string[], env: Record<string, string>, cwd?: string): Program {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, ...(cwd ? { cwd } : {}) });
  const lines: unknown[] = [];
  let wake: (() => void) | undefined;
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line));
    } catch {
      lines.push({ text: line });
    }
    wake?.();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
      wake?.();
    }),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    exited,
    stderr: () => errors,
    async next(match = () => true) {
      for (;;) {
        const index = lines.findIndex(match);
        if (index !== -1) return lines.splice(0, index + 1).at(-1);
        lines.length = 0;
        if (done) throw new Error(`the program exited before printing the line awaited; stderr: ${errors}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
