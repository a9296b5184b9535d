/**
 * What may reach a log line or an answer from an error: its type and a one-line message with URLs
 * (an RPC URL carries its API key), long hex (signed transactions, calldata) and stack frames removed.
 */

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]+/gi;
const LONG_HEX = /0x[0-9a-fA-F]{130,}/g;
const PRIVATE_KEY_LIKE = /0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;
const MAX_MESSAGE = 300;

/** `text` as one line with URLs, long hex and stack frames replaced. */
export function redact(text: string): string {
  const firstLines = text
    .split('\n')
    .filter((line) => !/^\s+at\s/.test(line))
    .join(' ');
  const clean = firstLines
    .replace(URL_PATTERN, '[url]')
    .replace(LONG_HEX, '[data]')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE)}…` : clean;
}

/** A private key has the shape of a tx hash; only where no hash is expected is it blanked too. */
export function redactSecrets(text: string): string {
  return redact(text).replace(PRIVATE_KEY_LIKE, '[hex32]');
}

/** The pino serializer for `err`: type and a redacted one-line message, never the stack. */
export function safeError(error: unknown): { type: string; message: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: redactSecrets(String(error)) };
  const short = (error as { shortMessage?: unknown }).shortMessage;
  const message = typeof short === 'string' ? short : error.message;
  return { type: error.name, message: redactSecrets(message) };
}
