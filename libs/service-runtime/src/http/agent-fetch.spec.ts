import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentFetch } from './agent-fetch';

type Seen = { method?: string; url?: string; headers: IncomingMessage['headers']; body: string };

describe('D6 agentFetch: the platform SDKs’ fetch over a keep-alive node:http Agent', () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'retry-after': '3' });
      res.end('{"ok":true,"ts":"1.2"}');
    };
  });

  it('D6 sends the method, headers and body, and answers as fetch would', async () => {
    const send = agentFetch();
    const response = await send(`${base}/api/chat.update`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ channel: 'C1', text: 'é' }),
    });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/chat.update',
      headers: { authorization: 'Bearer t', 'content-length': '22' },
      body: 'channel=C1&text=%C3%A9',
    });
    expect(response).toMatchObject({ status: 200, ok: true, statusText: 'OK', bodyUsed: false });
    expect(response.headers.get('Retry-After')).toBe('3');
    expect(await response.json()).toEqual({ ok: true, ts: '1.2' });
    await expect(response.text()).rejects.toThrow(/already been read/);
  });

  it('D6 a text body counts its bytes, not its characters; bytes are sent as they are', async () => {
    const send = agentFetch();
    const text = '{"text":"é ✓ 😀"}';
    await send(`${base}/api/v4/posts`, { method: 'POST', body: text });
    await send(`${base}/api/v4/posts`, { method: 'POST', body: new TextEncoder().encode(text) });
    for (const request of seen) {
      expect(request.headers['content-length']).toBe(String(Buffer.byteLength(text)));
      expect(request.body).toBe(text);
    }
    expect(seen).toHaveLength(2);
  });

  it('D6 reuses one socket for calls made one after another', async () => {
    const send = agentFetch();
    const ports = new Set<number>();
    answer = (req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.end('{}');
    };
    for (let i = 0; i < 3; i += 1) await (await send(`${base}/x`, { body: `{"n":${i}}` })).text();
    expect(seen.map((s) => s.body)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    expect(ports.size).toBe(1);
  });

  it('D6 an error status is an answer, not a rejection', async () => {
    answer = (_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end('slow down');
    };
    const response = await agentFetch()(new URL(`${base}/y`), { method: 'PATCH', body: 'x' });
    expect(response).toMatchObject({ status: 429, ok: false, statusText: 'Too Many Requests' });
    expect(await response.text()).toBe('slow down');
  });

  it('D6 a deadline rejects with the signal’s reason (a TimeoutError), as fetch does', async () => {
    answer = () => undefined; // never answers
    const started = agentFetch()(`${base}/slow`, { signal: AbortSignal.timeout(50) });
    await expect(started).rejects.toMatchObject({ name: 'TimeoutError' });
    const aborted = new AbortController();
    aborted.abort();
    await expect(agentFetch()(`${base}/x`, { signal: aborted.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('D6 a refused connection rejects as fetch does, with the network error as its cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(agentFetch()(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
  });

  it('D6 a body only fetch can send (a form with files) goes to the fallback', async () => {
    const fallen: unknown[] = [];
    const send = agentFetch({
      fallback: async (input, init) => {
        fallen.push([input, init?.body]);
        return new Response('{}');
      },
    });
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    await send(`${base}/upload`, { method: 'POST', body: form });
    expect(fallen).toEqual([[`${base}/upload`, form]]);
    expect(seen).toEqual([]);
  });
});
