import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  type ArgumentsHost,
  type CallHandler,
  Catch,
  type CanActivate,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  type INestMicroservice,
  Injectable,
  type NestInterceptor,
  type PipeTransform,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { bindingProvisionPlan } from '@tollgate/binding-core';
import { type DeliveredMessage, PermanentFailure, TransientFailure } from '@tollgate/messaging';
import { bindingConsumer, DLQ_HEADERS, streamNames } from '@tollgate/protocol';
import {
  type BaseConfig,
  ConsumerHost,
  InfrastructureModule,
  JetStreamConsumers,
  JetStreamContext,
  JetStreamSettlementFilter,
  JetStreamTransport,
  loadConfig,
  ReadinessService,
  ServiceRuntimeModule,
} from '@tollgate/service-runtime';
import { createTestSchema } from '../../support/database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from '../../support/nats';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';
import { testLogger } from '../binding-core/binding-harness';

const PATTERN = 'p6.things';

/** What the handler should do with a message, by the `do` of its JSON body. */
interface Thing {
  readonly id: string;
  readonly do: 'ok' | 'transient_once' | 'permanent' | 'refused' | 'hold' | 'forbidden';
}

/** Records what ran, in order, across the pipeline and the handler. */
const seen: string[] = [];
const deliveries = new Map<string, number>();
let releaseHeld: (() => void) | undefined;

class DomainRefusal extends Error {}

@Injectable()
class DecodeThingPipe implements PipeTransform<DeliveredMessage, Thing> {
  transform(message: DeliveredMessage): Thing {
    return JSON.parse(new TextDecoder().decode(message.data)) as Thing;
  }
}

@Injectable()
class RecordingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    seen.push(`guard:${context.switchToRpc().getContext<JetStreamContext>().getPattern()}`);
    const message = context.switchToRpc().getData<DeliveredMessage>();
    const thing = JSON.parse(new TextDecoder().decode(message.data)) as Thing;
    return thing.do !== 'forbidden';
  }
}

@Injectable()
class RecordingInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    seen.push('interceptor');
    return next.handle();
  }
}

/** A controller's own filter: a domain refusal can never succeed, so it is dead-lettered. */
@Catch(DomainRefusal)
class RefusalFilter implements ExceptionFilter {
  catch(exception: DomainRefusal, _host: ArgumentsHost): never {
    throw new PermanentFailure(`refused: ${exception.message}`);
  }
}

@Controller()
@UseGuards(RecordingGuard)
@UseInterceptors(RecordingInterceptor)
@UseFilters(RefusalFilter)
class ThingsController {
  @EventPattern(PATTERN)
  async handle(@Payload(DecodeThingPipe) thing: Thing, @Ctx() context: JetStreamContext) {
    const count = (deliveries.get(thing.id) ?? 0) + 1;
    deliveries.set(thing.id, count);
    seen.push(`handler:${thing.id}:${context.getMessage().deliveryCount}`);
    switch (thing.do) {
      case 'ok':
        return;
      case 'transient_once':
        if (count === 1) throw new TransientFailure('not_yet', { retryAfterMs: 50 });
        return;
      case 'permanent':
        throw new PermanentFailure('never_works');
      case 'refused':
        throw new DomainRefusal('not allowed');
      case 'forbidden':
        return;
      case 'hold':
        await new Promise<void>((resolve) => (releaseHeld = resolve));
        seen.push(`released:${thing.id}`);
        return;
    }
  }
}

describe('P6 — JetStream as a NestJS transport (real NATS)', () => {
  const schema = createTestSchema('p6transport');
  const prefix = uniqueToken('p6transport').slice(0, 24);
  let config: BaseConfig;
  let app: INestMicroservice | undefined;
  let nc: NatsConnection;
  const subject = (id: string) => `${prefix}.out.slack.slack-${'0'.repeat(32)}.call.${id}.request`;

  beforeAll(async () => {
    config = loadConfig(
      'slack-binding',
      {
        DATABASE_URL: schema.url,
        DATABASE_SCHEMA: schema.schema,
        NATS_URL: TEST_NATS_URL,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        TOLLGATE_ACK_WAIT_MS: '2000',
        TOLLGATE_RETRY_BASE_MS: '50',
        TOLLGATE_DRAIN_MS: '5000',
      },
      {},
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        ServiceRuntimeModule.forRoot(config, testLogger),
        InfrastructureModule.forRoot({
          provisionPlan: bindingProvisionPlan(config, 'slack'),
          migrations: [],
        }),
      ],
      controllers: [ThingsController],
    }).compile();
    moduleRef
      .get(JetStreamConsumers)
      .declare(PATTERN, bindingConsumer(prefix, 'slack', config.TOLLGATE_ACK_WAIT_MS));
    app = moduleRef.createNestMicroservice({
      strategy: new JetStreamTransport(
        moduleRef.get(ConsumerHost),
        moduleRef.get(JetStreamConsumers),
      ),
    });
    app.useGlobalFilters(new JetStreamSettlementFilter());
    await app.listen();
    const readiness = app.get(ReadinessService);
    await waitFor('provisioned and consuming', async () => (await readiness.report()).ready);
    nc = await connectTestNats();
  });

  afterAll(async () => {
    await app?.close();
    await deleteStreams(nc, prefix);
    await nc.close();
    await schema.drop();
  });

  async function publish(thing: Thing): Promise<void> {
    await jetstream(nc).publish(subject(thing.id), JSON.stringify(thing), { msgID: thing.id });
  }

  async function settled(): Promise<void> {
    const jsm = await jetstreamManager(nc);
    await waitFor('every message settled', async () => {
      const info = await jsm.consumers.info(streamNames(prefix).outputs, 'slack-binding');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });
  }

  async function deadLetters(): Promise<{ subject: string; reason?: string }[]> {
    const jsm = await jetstreamManager(nc);
    const stream = streamNames(prefix).deadLetters;
    const info = await jsm.streams.info(stream);
    const letters: { subject: string; reason?: string }[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (m) {
        letters.push({
          subject: m.header.get(DLQ_HEADERS.originalSubject),
          reason: m.header.get(DLQ_HEADERS.reason),
        });
      }
    }
    return letters;
  }

  it('P6 a handler that returns acks, through guard, interceptor and pipe', async () => {
    await publish({ id: 'ok1', do: 'ok' });
    await waitFor('handled', () => deliveries.get('ok1') === 1);
    await settled();
    expect(seen).toEqual(
      expect.arrayContaining([`guard:${PATTERN}`, 'interceptor', 'handler:ok1:1']),
    );
    expect(seen.indexOf(`guard:${PATTERN}`)).toBeLessThan(seen.indexOf('handler:ok1:1'));
    expect(deliveries.get('ok1')).toBe(1);
  });

  it('P6 a TransientFailure naks with a delay: the message comes back and then acks', async () => {
    await publish({ id: 'tr1', do: 'transient_once' });
    await waitFor('redelivered', () => deliveries.get('tr1') === 2);
    await settled();
    expect(seen).toContain('handler:tr1:2');
    expect(deliveries.get('tr1')).toBe(2);
  });

  it('P6 a PermanentFailure, or a controller filter turning an error into one, dead-letters', async () => {
    await publish({ id: 'pm1', do: 'permanent' });
    await publish({ id: 'rf1', do: 'refused' });
    const letters = await waitFor('two dead letters', async () => {
      const found = await deadLetters();
      return found.length >= 2 && found;
    });
    await settled();
    expect(letters).toEqual(
      expect.arrayContaining([
        { subject: subject('pm1'), reason: 'never_works' },
        { subject: subject('rf1'), reason: 'refused: not allowed' },
      ]),
    );
    expect(deliveries.get('pm1')).toBe(1);
    expect(deliveries.get('rf1')).toBe(1);
  });

  it('P6 a guard that refuses dead-letters at once, with the reason: no redelivery can pass it', async () => {
    await publish({ id: 'gd1', do: 'forbidden' });
    const letters = await waitFor('the dead letter', async () => {
      const found = (await deadLetters()).filter((l) => l.subject === subject('gd1'));
      return found.length === 1 && found;
    });
    await settled();
    expect(letters).toEqual([{ subject: subject('gd1'), reason: 'refused: Forbidden resource' }]);
    expect(deliveries.get('gd1')).toBeUndefined();
  });

  it('P6 close drains: the message in flight finishes and is acked, nothing more is pulled', async () => {
    await publish({ id: 'hd1', do: 'hold' });
    await waitFor('the held handler running', () => releaseHeld !== undefined);
    const closing = app!.close();
    // Published while draining: not pulled by this (stopping) consumer.
    await publish({ id: 'late1', do: 'ok' });
    setTimeout(() => releaseHeld?.(), 200);
    await closing;
    app = undefined;
    expect(seen).toContain('released:hd1');
    expect(deliveries.get('late1')).toBeUndefined();
    const jsm = await jetstreamManager(nc);
    const info = await jsm.consumers.info(streamNames(prefix).outputs, 'slack-binding');
    // Only the late message is left (pending, or handed back by a pull that was still open):
    // the held one was acked, not handed back.
    expect(info.num_pending + info.num_ack_pending).toBe(1);
    expect(deliveries.get('hd1')).toBe(1);
  });
});
