// A writable stream for tests of terminal output: says whether it is a terminal, keeps what is written.

export function capturedStream(isTTY: boolean): { written: string[]; stream: NodeJS.WriteStream } {
  const written: string[] = [];
  return {
    written,
    stream: {
      isTTY,
      write: (text: string) => {
        written.push(text);
        return true;
      },
    } as unknown as NodeJS.WriteStream,
  };
}
