// The cost of the NestJS layer on a consumed message (issue 12, P6): a delivery handed to an
// @EventPattern handler through JetStreamTransport — Nest's context creation, guards,
// interceptors, pipes and exception filters, as a binding's output handler gets it — against
// the same handler called directly, as ConsumerHost ran it before. No NATS: the transport's
// consumer host is replaced by one that captures the handler, so only the layer is timed.
// It reports; it asserts nothing.
//
//   npm run build --silent && node bench/jetstream-transport.bench.mjs [--messages 200000]
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
require('reflect-metadata');
const { Controller, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { EventPattern, Payload, Ctx } = require('@nestjs/microservices');
const runtime = require('../dist/libs/service-runtime/index.js');

const { values } = parseArgs({
  options: { messages: { type: 'string' }, smoke: { type: 'boolean', default: false } },
});
// --smoke: tiny counts, so `npm test` proves the bench still runs (test/bench).
const messages = Number(values.messages ?? (values.smoke ? 2_000 : 200_000));
const ROUNDS = 5;

let handled = 0;
class ThingsController {
  async handle(message, context) {
    if (message.data.length > 0 && context) handled += 1;
  }
}
Controller()(ThingsController);
const proto = ThingsController.prototype;
Payload()(proto, 'handle', 0);
Ctx()(proto, 'handle', 1);
EventPattern('bench.things')(proto, 'handle', Object.getOwnPropertyDescriptor(proto, 'handle'));
class BenchModule {}
Module({ controllers: [ThingsController], providers: [runtime.JetStreamConsumers] })(BenchModule);

/** Stands in for ConsumerHost: keeps the handler the transport gives the runner. */
const captured = {};
const host = {
  run: async (definition, handler) => {
    captured.handler = handler;
  },
  beforeApplicationShutdown: async () => undefined,
};

const app = await NestFactory.createMicroservice(BenchModule, {
  strategy: new runtime.JetStreamTransport(host, {
    get: () => ({ pattern: 'bench.things', definition: {}, options: {} }),
    all: () => [{ pattern: 'bench.things', definition: { durable: 'bench' }, options: {} }],
    onDeclared: () => undefined,
  }),
  logger: false,
});
app.useGlobalFilters(new runtime.JetStreamSettlementFilter());
await app.listen();

const message = {
  subject: 'bench.out.slack.slack-0.call.c.resolved',
  data: new TextEncoder().encode('{"type":"ToolInteractionResolved"}'),
  headers: new Map(),
  streamSeq: 1,
  deliveryCount: 1,
  working: () => undefined,
};
const direct = new ThingsController();

async function time(call) {
  const start = performance.now();
  for (let i = 0; i < messages; i += 1) await call();
  return ((performance.now() - start) * 1e6) / messages;
}

const viaNest = [];
const plain = [];
for (let round = 0; round < ROUNDS; round += 1) {
  plain.push(await time(() => direct.handle(message, {})));
  viaNest.push(await time(() => captured.handler(message)));
}
await app.close();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
if (handled !== 2 * ROUNDS * messages) throw new Error(`handled ${handled} messages`);

console.log(`messages per round: ${messages}, median of ${ROUNDS} rounds`);
console.log(
  `handler called directly (ConsumerHost before): ${median(plain).toFixed(0)} ns/message`,
);
console.log(
  `through the JetStream transport (Nest pipeline): ${median(viaNest).toFixed(0)} ns/message`,
);
console.log(`the layer's cost: ${(median(viaNest) - median(plain)).toFixed(0)} ns/message`);
