// Prompts given on the command line, where `-` means "read it from standard input" (a long task
// piped in from a file or another program), with a size cap so a runaway pipe is refused.
import { UsageError } from './context.js';

/** The largest prompt read from standard input. */
const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;

/** Reads standard input to its end as UTF-8; a usage error past the cap. */
export async function readStdinText(
  stdin: AsyncIterable<Buffer | string>,
  maxBytes = MAX_STDIN_PROMPT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > maxBytes)
      throw new UsageError(
        `the prompt read from standard input is over ${maxBytes} bytes; pass a shorter one`,
      );
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The prompts of `words`, where one `-` is replaced by standard input's text (read once). An empty
 * prompt, or `-` given twice, is a usage error naming `what`.
 */
export async function promptsFrom(
  words: readonly string[],
  what: string,
  stdin: AsyncIterable<Buffer | string> = process.stdin,
): Promise<string[]> {
  if (words.filter((w) => w === '-').length > 1)
    throw new UsageError(`${what}: "-" (read from standard input) may be given once`);
  const out: string[] = [];
  for (const word of words) {
    const text = word === '-' ? (await readStdinText(stdin)).trim() : word.trim();
    if (word === '-' && text === '') throw new UsageError(`${what}: standard input was empty`);
    out.push(text);
  }
  return out;
}
