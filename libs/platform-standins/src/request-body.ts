import type { IncomingMessage } from 'node:http';

/**
 * A request's whole body as text. Every stand-in reads its bodies the same way before it
 * parses them by its platform's rules (form, JSON), so the reading lives here once; not
 * exported from the package, since it is no part of what a stand-in offers its users.
 */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
