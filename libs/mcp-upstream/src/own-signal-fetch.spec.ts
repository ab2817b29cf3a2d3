import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ownSignalFetch } from './own-signal-fetch';

describe('M1 — ownSignalFetch', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // Answers /fast at once and never answers /slow.
    server = createServer((req, res) => {
      if (req.url === '/fast') res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('M1 leaves no abort listener on the shared signal per request', async () => {
    const shared = new AbortController();
    const listening = jest.spyOn(shared.signal, 'addEventListener');
    for (let i = 0; i < 5; i += 1) {
      expect(await (await ownSignalFetch(`${url}/fast`, { signal: shared.signal })).text()).toBe(
        'ok',
      );
    }
    expect(listening).not.toHaveBeenCalled();
  });

  it('M1 still aborts a request in progress when the shared signal aborts', async () => {
    const shared = new AbortController();
    const pending = ownSignalFetch(`${url}/slow`, { signal: shared.signal });
    shared.abort(new Error('transport closed'));
    await expect(pending).rejects.toThrow('transport closed');
  });
});
