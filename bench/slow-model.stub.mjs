// An OpenAI-compatible chat-completions stub that answers every request after a fixed delay,
// for bench:session. It runs in its own process so its work is not measured with the
// service's. Usage: node bench/slow-model.stub.mjs <delayMs>; prints `listening <port>`.
// GET /stats answers {inFlight, peak, served}; POST /reset clears peak and served.
import { createServer } from 'node:http';

const delayMs = Number(process.argv[2] ?? 1000);
let inFlight = 0;
let peak = 0;
let served = 0;

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ inFlight, peak, served }));
    }
    if (req.method === 'POST' && req.url === '/reset') {
      peak = inFlight;
      served = 0;
      res.writeHead(204);
      return res.end();
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404);
      return res.end();
    }
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const last = body.messages.at(-1);
    setTimeout(() => {
      inFlight -= 1;
      served += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${served}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `answer to ${last?.content ?? ''}` },
              finish_reason: 'stop',
            },
          ],
        }),
      );
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
