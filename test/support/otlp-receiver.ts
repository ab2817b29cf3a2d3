import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

/**
 * A collector as small as a test needs: accepts OTLP/HTTP JSON trace exports on /v1/traces
 * (what @opentelemetry/exporter-trace-otlp-http sends) from every service a test starts with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointed here, and keeps their spans. Anything else is a 415.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly refused: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const type = req.headers['content-type'] ?? '';
        if (req.url !== '/v1/traces' || !type.startsWith('application/json')) {
          receiver.refused.push(`${req.method} ${req.url} ${type}`);
          res.statusCode = 415;
          res.end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        receiver.record(JSON.parse(body.toString('utf8')) as OtlpExport);
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** What a service's OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  get endpoint(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private record(exported: OtlpExport): void {
    for (const resource of exported.resourceSpans ?? []) {
      const name = valuesOf(resource.resource?.attributes)['service.name'];
      const service = typeof name === 'string' ? name : '';
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: hexId(span.traceId),
            spanId: hexId(span.spanId),
            parentSpanId: span.parentSpanId ? hexId(span.parentSpanId) : undefined,
            attributes: valuesOf(span.attributes),
          });
        }
      }
    }
  }
}

function valuesOf(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    values[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  }
  return values;
}

/** OTLP/JSON ids are hex; an exporter that base64-encodes them is read too. */
function hexId(id: string): string {
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16)
    ? id.toLowerCase()
    : Buffer.from(id, 'base64').toString('hex');
}
