// A bare stub of one chat platform's API for the binding bench: a node:http server that
// answers the calls a binding makes on its hot path with the platform's success shape, after
// as little parsing as that shape needs (the channel, when the answer must name it). It is
// not a fake: it checks nothing and keeps nothing. The test fakes (test/fakes) stay the
// judges of correctness; this only has to be cheap, so that neither the floor nor the
// binding measures the fake. It runs in its own process, started by binding.bench.mjs, and
// both the floor and the binding call the same instance.
//
//   node bench/platform-api.stub.mjs --platform slack|discord|mattermost
//
// Prints `listening <port>` once it answers. Control routes, not counted as calls:
// GET /__stub/tally → { calls, posts, edits, other, byClient }, PUT /__stub/latency/<ms>.
// A call's client is taken from an `x-bench-client` header or a `/c/<client>/` path prefix
// (the prefix is stripped), so the bench can tell the floor's calls from the binding's.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { platform: { type: 'string' } } });
const platform = values.platform;
if (!['slack', 'discord', 'mattermost'].includes(platform)) {
  process.stderr.write('platform-api.stub: --platform slack|discord|mattermost\n');
  process.exit(2);
}

let latencyMs = 0;
let seq = 0;
const tally = { calls: 0, posts: 0, edits: 0, other: 0, byClient: {} };

function count(kind, client) {
  tally.calls += 1;
  tally[kind] += 1;
  const mine = (tally.byClient[client] ??= { calls: 0, posts: 0, edits: 0, other: 0 });
  mine.calls += 1;
  mine[kind] += 1;
}

/** The first `"channel_id":"…"` or `channel=…` in a body; enough to answer a post. */
function channelIn(body) {
  const json = /"channel(?:_id)?"\s*:\s*"([^"]*)"/.exec(body);
  if (json) return json[1];
  const form = /(?:^|&)channel=([^&]*)/.exec(body);
  return form ? decodeURIComponent(form[1]) : 'C0';
}

function nextId() {
  seq += 1;
  return String(1_300_000_000_000_000_000n + BigInt(seq));
}

/** [kind, status, answer] for one call. */
function answer(method, path, body) {
  switch (platform) {
    case 'slack': {
      const api = path.slice(path.lastIndexOf('/') + 1);
      if (api === 'chat.postMessage') {
        return ['posts', 200, { ok: true, channel: channelIn(body), ts: `1800000000.${seq++}` }];
      }
      if (api === 'chat.update') {
        return ['edits', 200, { ok: true, channel: channelIn(body), ts: '1800000000.1' }];
      }
      return ['other', 200, { ok: true }];
    }
    case 'discord': {
      const posted = /\/channels\/(\d+)\/messages$/.exec(path);
      if (method === 'POST' && posted) {
        return ['posts', 200, { id: nextId(), channel_id: posted[1] }];
      }
      const edited = /\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
      if (method === 'PATCH' && edited) {
        return ['edits', 200, { id: edited[2], channel_id: edited[1] }];
      }
      return ['other', 200, {}];
    }
    case 'mattermost': {
      if (method === 'POST' && path.endsWith('/api/v4/posts')) {
        return ['posts', 201, { id: nextId(), channel_id: channelIn(body) }];
      }
      const patched = /\/api\/v4\/posts\/([^/]+)\/patch$/.exec(path);
      if (method === 'PUT' && patched) {
        return ['edits', 200, { id: patched[1], channel_id: channelIn(body) }];
      }
      if (path.endsWith('/api/v4/users/me')) return ['other', 200, { id: 'bench-bot' }];
      return ['other', 200, {}];
    }
  }
}

const server = createServer((req, res) => {
  let url = req.url ?? '/';
  if (url.startsWith('/__stub/')) {
    req.resume();
    const latency = /^\/__stub\/latency\/(\d+)$/.exec(url);
    if (latency) latencyMs = Number(latency[1]);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(tally));
    return;
  }
  let client = req.headers['x-bench-client'] ?? 'binding';
  const prefixed = /^\/c\/([a-z0-9-]+)(\/.*)$/.exec(url);
  if (prefixed) {
    client = prefixed[1];
    url = prefixed[2];
  }
  const path = url.split('?', 1)[0];
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const [kind, status, body] = answer(req.method, path, Buffer.concat(chunks).toString());
    count(kind, client);
    const send = () => {
      // Exactly application/json: Client4 parses nothing else.
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
