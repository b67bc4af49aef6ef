/** Where the CLI writes: injectable for tests. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  /** Writes to stdout as given (no newline added): live answers. Absent: `out` per piece. */
  write?: (text: string) => void;
}

/** The process's stdout and stderr. */
export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isTTY: Boolean(process.stdout.isTTY),
  write: (text) => process.stdout.write(text),
};

/** Prints `value` as JSON (for `--json`). */
export function printJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}
