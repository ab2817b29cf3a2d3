// The bare floor the binding is measured against: a JetStream consumer with no framework
// that, for each output, runs one PostgreSQL transaction (lock the prompt's row, read its
// message ref, mark it resolved), makes one HTTP call to the platform stub (the same edit the
// binding makes, with the same rendered body) and acks. At most FLOOR_CONFIG.concurrency
// outputs are in flight, as the binding's runner holds at most maxInFlight.
// FLOOR_CONFIG.http picks the HTTP client: `fetch` (undici, what Node offers first) or
// `agent` (node:http over a keep-alive http.Agent, one socket per output in flight), the
// cheapest call Node makes: the binding is reported against both.
// Started by binding.bench.mjs as its own process, as a binding replica is; prints "ready"
// once it is pulling, and stops on SIGTERM.
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { connect } = require('@nats-io/transport-node');
const { jetstream } = require('@nats-io/jetstream');
const { Pool } = require('pg');

const config = JSON.parse(process.env.FLOOR_CONFIG ?? '{}');
const { natsUrl, stream, durable, databaseUrl, table, platform, apiBase, token, concurrency } =
  config;
const staticBody = config.body;
const http = config.http ?? 'fetch';
if (!['fetch', 'agent'].includes(http)) throw new Error(`floor: no http client ${http}`);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

// A connection per output in flight (fewer in a smoke run, on a shared database server).
const poolMax = config.poolMax ?? concurrency;
const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
// Connected before "ready", as a binding replica's pool is before it reports ready.
const warm = await Promise.all(Array.from({ length: poolMax }, () => pool.connect()));
for (const client of warm) client.release();
const nc = await connect({ servers: natsUrl, name: 'bench-floor' });
const consumer = await jetstream(nc).consumers.get(stream, durable);
const messages = await consumer.consume({ max_messages: concurrency });
const decoder = new TextDecoder();
const slackBlocks = platform === 'slack' ? JSON.stringify(staticBody.blocks) : undefined;

/** The platform's edit of one message, as the binding's SDK sends it. */
function editRequest(channel, messageId) {
  switch (platform) {
    case 'slack':
      return [
        `${apiBase}/api/chat.update`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            channel,
            ts: messageId,
            text: staticBody.text,
            blocks: slackBlocks,
          }).toString(),
        },
      ];
    case 'discord':
      return [
        `${apiBase}/api/v10/channels/${channel}/messages/${messageId}`,
        {
          method: 'PATCH',
          headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(staticBody),
        },
      ];
    case 'mattermost':
      return [
        `${apiBase}/api/v4/posts/${messageId}/patch`,
        {
          method: 'PUT',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: messageId, ...staticBody }),
        },
      ];
    default:
      throw new Error(`floor: no platform ${platform}`);
  }
}

async function handle(msg) {
  const output = JSON.parse(decoder.decode(msg.data));
  const id = `${output.sessionId}/${output.callId}`;
  const client = await pool.connect();
  let row;
  try {
    await client.query('BEGIN');
    [row] = (
      await client.query(`SELECT channel, ts FROM ${table} WHERE id = $1 FOR UPDATE`, [id])
    ).rows;
    await client.query(
      `UPDATE ${table} SET status = 'resolved', updated_at = now() WHERE id = $1`,
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  const [url, init] = editRequest(row.channel, row.ts);
  const status = http === 'fetch' ? await viaFetch(url, init) : await viaAgent(url, init);
  if (status < 200 || status >= 300) throw new Error(`edit: HTTP ${status}`);
  msg.ack();
}

async function viaFetch(url, init) {
  const response = await fetch(url, init);
  await response.json();
  return response.status;
}

/** The same call over node:http and a keep-alive Agent; the answer read and parsed alike. */
function viaAgent(url, { method, headers, body }) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          try {
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
            resolve(res.statusCode ?? 0);
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let inFlight = 0;
const freed = [];
process.once('SIGTERM', () => {
  void messages.close();
});
process.stdout.write('ready\n');
for await (const msg of messages) {
  if (inFlight >= concurrency) await new Promise((resolve) => freed.push(resolve));
  inFlight += 1;
  handle(msg)
    .catch((error) => {
      process.stderr.write(`floor: ${error.message}\n`);
      msg.nak();
    })
    .finally(() => {
      inFlight -= 1;
      freed.shift()?.();
    });
}
await nc.drain();
await pool.end();
agent.destroy();
