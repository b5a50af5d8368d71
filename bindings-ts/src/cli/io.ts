// Where the CLI writes its own text. Commands take it as a parameter so tests can capture it;
// a simulated app's output does not pass through here (it goes straight to the terminal).
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
