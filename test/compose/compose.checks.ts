import {
  APP_SERVICES,
  COMMON_VARIABLES,
  DEFAULT_DRAIN_MS,
  CLUSTER_NODES,
  INFRA_SERVICES,
  NATS_CLUSTER_CONFIG_FILE,
  NATS_CONFIG_FILE,
  NATS_PASSWORD_VARIABLES,
  NATS_START_SCRIPT,
  ROUTE_NETWORK,
  SECRET_NAME,
  TRACING_SERVICES,
  defaultSchema,
  natsPasswordVariable,
  type AppService,
} from './deployment.expectations';

// Each check returns every problem it finds, as text naming the service and the setting,
// so one failing run shows the whole drift.

/** The parts of the Compose file format these checks read. */
export interface ComposeService {
  image?: string;
  command?: string | string[];
  build?: string | { context?: string; dockerfile?: string; args?: Record<string, string> };
  environment?: Record<string, string | null> | string[];
  ports?: Array<
    string | { published?: string | number; target?: string | number; host_ip?: string }
  >;
  volumes?: Array<string | { source?: string; target?: string }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  entrypoint?: string | string[];
  healthcheck?: { test?: string | string[] };
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  stop_grace_period?: string;
  profiles?: string[];
}

export interface ComposeFile {
  services?: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { internal?: boolean } | null>;
}

/** `${VAR:?message}`: Compose stops, naming VAR, when it is unset or empty. */
const REQUIRED = /^\$\{([A-Z0-9_]+):\?[^}]+\}$/;

const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?+][^}]*)?\}/g;

/** Compose accepts `environment` as a map or as `KEY=value` lines. */
export function environmentOf(service: ComposeService): Record<string, string | null> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(
    env.map((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [line, null] : [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

function publishedPorts(
  service: ComposeService,
): Array<{ host: string; published: string; target: string }> {
  return (service.ports ?? []).map((port) => {
    if (typeof port !== 'string') {
      return {
        host: port.host_ip ?? '',
        published: String(port.published),
        target: String(port.target),
      };
    }
    const parts = port.split(':');
    return {
      host: parts.length > 2 ? parts.slice(0, -2).join(':') : '',
      published: parts.at(-2) ?? '',
      target: parts.at(-1) ?? '',
    };
  });
}

/** The URL's host once interpolations are replaced by a harmless word. */
function hostOf(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value.replace(INTERPOLATION, 'x')).hostname;
  } catch {
    return undefined;
  }
}

function durationMs(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * (units[unit] ?? 0);
  }
  return total;
}

function checkApp(
  name: AppService,
  service: ComposeService | undefined,
  doc: ComposeFile,
): string[] {
  if (!service) return [`${name}: service missing`];
  const problems: string[] = [];
  const { port, own } = APP_SERVICES[name];
  const build = typeof service.build === 'string' ? { context: service.build } : service.build;
  if (!build) problems.push(`${name}: not built from the Dockerfile`);
  else {
    if (build.context !== '.') problems.push(`${name}: build context is not the repository root`);
    if ((build.dockerfile ?? 'Dockerfile') !== 'Dockerfile') {
      problems.push(`${name}: builds from ${build.dockerfile}, not the shared Dockerfile`);
    }
    if (build.args?.SERVICE !== name) problems.push(`${name}: build arg SERVICE is not ${name}`);
  }

  const env = environmentOf(service);
  for (const variable of [...COMMON_VARIABLES, ...own]) {
    if (!(variable in env)) problems.push(`${name}: ${variable} missing from environment`);
  }
  if (env.PORT !== String(port)) problems.push(`${name}: PORT is ${env.PORT}, expected ${port}`);
  const ports = publishedPorts(service);
  if (!ports.some((p) => p.published === `${port}` && p.target === `${port}`)) {
    problems.push(`${name}: port ${port} is not published as ${port}:${port}`);
  }
  // Only what a chat platform must reach is published beyond this host: a binding's inbound port.
  if (!APP_SERVICES[name].inbound) {
    for (const p of ports.filter((q) => q.host !== '127.0.0.1')) {
      problems.push(
        `${name}: port ${p.target} is published beyond 127.0.0.1; no platform reaches it`,
      );
    }
  }
  if (env.DATABASE_SCHEMA !== defaultSchema(name)) {
    problems.push(`${name}: DATABASE_SCHEMA is ${env.DATABASE_SCHEMA}`);
  }
  const databaseUrl = env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) || hostOf(databaseUrl) !== 'postgres') {
    problems.push(`${name}: DATABASE_URL does not point at the postgres service`);
  }
  // `${NATS_URL:-nats://nats:4222}`: the cluster profile sets all three nodes instead.
  const natsUrl = /^\$\{NATS_URL:-(.*)\}$/.exec(env.NATS_URL ?? '')?.[1] ?? env.NATS_URL ?? '';
  if (!natsUrl.startsWith('nats://') || hostOf(natsUrl) !== 'nats') {
    problems.push(`${name}: NATS_URL does not point at the nats service by default`);
  }
  if (env.NATS_USER !== name) problems.push(`${name}: NATS_USER is ${env.NATS_USER}, not ${name}`);
  if (REQUIRED.exec(env.NATS_PASSWORD ?? '')?.[1] !== natsPasswordVariable(name)) {
    problems.push(`${name}: NATS_PASSWORD is not \${${natsPasswordVariable(name)}:?…}`);
  }
  if (!/\$\{POSTGRES_PASSWORD:\?[^}]+\}@/.test(databaseUrl)) {
    problems.push(
      `${name}: DATABASE_URL does not require POSTGRES_PASSWORD (\${POSTGRES_PASSWORD:?…})`,
    );
  }

  for (const dependency of INFRA_SERVICES) {
    const dependsOn = Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {});
    const condition = dependsOn[dependency]?.condition;
    if (condition !== 'service_healthy') {
      problems.push(`${name}: does not wait for ${dependency} to be healthy`);
    }
    if (!doc.services?.[dependency]?.healthcheck) {
      problems.push(`${dependency}: has no healthcheck for ${name} to wait on`);
    }
  }
  const probe = JSON.stringify(service.healthcheck?.test ?? '');
  if (!probe.includes('/health/ready')) problems.push(`${name}: healthcheck is not /health/ready`);
  if (durationMs(service.stop_grace_period) <= DEFAULT_DRAIN_MS) {
    problems.push(`${name}: stop_grace_period is not longer than the ${DEFAULT_DRAIN_MS} ms drain`);
  }
  return problems;
}

function checkSecrets(doc: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(doc.services ?? {})) {
    for (const [variable, value] of Object.entries(environmentOf(service))) {
      if (!SECRET_NAME.test(variable)) continue;
      const interpolation = /^\$\{([A-Z0-9_]+)(:?([-?])([^}]*))?\}$/.exec(value ?? '');
      // A service's NATS password is the one nats-server knows under that service's name.
      const source =
        variable === 'NATS_PASSWORD' && name in APP_SERVICES
          ? natsPasswordVariable(name as AppService)
          : variable;
      if (!interpolation) {
        problems.push(`${name}: ${variable} holds a literal value instead of \${${source}}`);
      } else if (interpolation[1] !== source) {
        problems.push(`${name}: ${variable} is read from \${${interpolation[1]}}`);
      } else if (interpolation[3] === '-' && interpolation[4]) {
        problems.push(`${name}: ${variable} has a default value`);
      } else if (variable.endsWith('_PASSWORD') && !REQUIRED.test(value ?? '')) {
        // A password variable defined but empty is the password "": Compose must refuse it.
        problems.push(`${name}: ${variable} is not required (\${${source}:?…})`);
      }
    }
  }
  return problems;
}

function mounts(service: ComposeService): string[][] {
  return (service.volumes ?? []).map((v) =>
    typeof v === 'string' ? v.split(':') : [v.source ?? '', v.target ?? ''],
  );
}

function checkNats(
  nats: ComposeService | undefined,
  doc: ComposeFile,
  name = 'nats',
  configFile = NATS_CONFIG_FILE,
  passwords: readonly string[] = NATS_PASSWORD_VARIABLES,
): string[] {
  if (!nats) return [`${name}: service missing`];
  const problems: string[] = [];
  const command: string[] =
    typeof nats.command === 'string' ? nats.command.split(/\s+/) : (nats.command ?? []);
  if (!command.includes('-js') && !command.includes('--jetstream')) {
    problems.push(`${name}: JetStream is not enabled (-js)`);
  }
  const storeFlag = command.findIndex((arg) => arg === '-sd' || arg === '--store_dir');
  const store = storeFlag >= 0 ? command[storeFlag + 1] : undefined;
  if (!store) problems.push(`${name}: no JetStream store directory (-sd)`);
  const volume = (nats.volumes ?? [])
    .map((v) => (typeof v === 'string' ? v.split(':') : [v.source ?? '', v.target ?? '']))
    .find(([, target]) => target === store);
  if (!volume) problems.push(`${name}: the store directory ${store} is not on a volume`);
  else if (!(volume[0] in (doc.volumes ?? {}))) {
    problems.push(`${name}: volume ${volume[0]} is not a named volume`);
  }
  const ports = publishedPorts(nats);
  if (!ports.some((p) => p.target === '4222')) {
    problems.push(`${name}: client port 4222 is not published`);
  }
  for (const port of ports.filter((p) => p.host !== '127.0.0.1')) {
    problems.push(`${name}: port ${port.target} is published beyond 127.0.0.1`);
  }
  for (const port of ports.filter((p) => p.target !== '4222')) {
    problems.push(`${name}: port ${port.target} is published; only clients (4222) may be`);
  }
  if (command.includes('-m') || command.includes('--http_port')) {
    problems.push(
      `${name}: monitoring on every interface (-m); the configuration's http sets loopback`,
    );
  }
  for (const flag of ['--cluster', '--routes', '--cluster_listen']) {
    if (command.includes(flag)) {
      problems.push(`${name}: ${flag} on the command line clears the routes' authorization`);
    }
  }
  const entrypoint = JSON.stringify(nats.entrypoint ?? '');
  const wrapper = mounts(nats).find(([, target]) => entrypoint.includes(target ?? '\0'));
  if (!wrapper || wrapper[0]?.replace(/^\.\//, '') !== NATS_START_SCRIPT) {
    problems.push(
      `${name}: not started through ${NATS_START_SCRIPT}, which refuses weak passwords`,
    );
  }
  const configFlag = command.findIndex((arg) => arg === '-c' || arg === '--config');
  const config = configFlag >= 0 ? command[configFlag + 1] : undefined;
  const mounted = mounts(nats).find(([, target]) => target === config);
  if (!config)
    problems.push(`${name}: started without a configuration (-c), so anyone may connect`);
  else if (!mounted || mounted[0]?.replace(/^\.\//, '') !== configFile) {
    problems.push(`${name}: ${config} is not ${configFile} mounted`);
  }
  const env = environmentOf(nats);
  for (const variable of passwords) {
    if (REQUIRED.exec(env[variable] ?? '')?.[1] !== variable) {
      problems.push(`${name}: ${variable} is not required as \${${variable}:?…}`);
    }
  }
  return problems;
}

/**
 * The `cluster` profile: three JetStream nodes, each as guarded as the single one, named,
 * in one cluster, routed to all three, and off by default.
 */
function checkCluster(doc: ComposeFile): string[] {
  const problems: string[] = [];
  const routeNetwork = doc.networks?.[ROUTE_NETWORK];
  if (routeNetwork?.internal !== true) {
    problems.push(`networks: ${ROUTE_NETWORK} is not internal`);
  }
  for (const node of CLUSTER_NODES) {
    const service = doc.services?.[node];
    problems.push(
      ...checkNats(service, doc, node, NATS_CLUSTER_CONFIG_FILE, [
        ...NATS_PASSWORD_VARIABLES,
        'NATS_PASSWORD_ROUTE',
      ]),
    );
    if (!service) continue;
    if (!(service.profiles ?? []).includes('cluster')) {
      problems.push(`${node}: not in the cluster profile, so it would start by default`);
    }
    const command: string[] =
      typeof service.command === 'string' ? service.command.split(/\s+/) : (service.command ?? []);
    const at = command.indexOf('--server_name');
    if (command[at + 1] !== node || at < 0) problems.push(`${node}: --server_name is not ${node}`);
    const env = environmentOf(service);
    const networks = Array.isArray(service.networks) ? {} : (service.networks ?? {});
    const address = networks[ROUTE_NETWORK]?.ipv4_address;
    const listen = env.NATS_CLUSTER_LISTEN ?? '';
    if (!address || listen !== `${address}:6222`) {
      problems.push(`${node}: routes do not listen on its ${ROUTE_NETWORK} address only`);
    }
    const routes = (env.NATS_ROUTE_HOSTS ?? '').split(',');
    for (const other of CLUSTER_NODES) {
      const otherNetworks = doc.services?.[other]?.networks;
      const otherAddress = Array.isArray(otherNetworks)
        ? undefined
        : otherNetworks?.[ROUTE_NETWORK]?.ipv4_address;
      if (!otherAddress || !routes.includes(`${otherAddress}:6222`)) {
        problems.push(`${node}: no route to ${other}`);
      }
    }
  }
  return problems;
}

function checkPostgres(postgres: ComposeService | undefined): string[] {
  if (!postgres) return ['postgres: service missing'];
  const problems: string[] = [];
  if (!/^postgres:15(\b|$)/.test(String(postgres.image))) {
    problems.push(`postgres: image ${postgres.image} is not PostgreSQL 15`);
  }
  const volumes: unknown[] = postgres.volumes ?? [];
  if (!volumes.some((v) => JSON.stringify(v).includes('/var/lib/postgresql/data'))) {
    problems.push('postgres: data directory is not on a volume');
  }
  return problems;
}

export function composeProblems(doc: ComposeFile): string[] {
  return [
    ...(Object.keys(APP_SERVICES) as AppService[]).flatMap((name) =>
      checkApp(name, doc.services?.[name], doc),
    ),
    ...checkSecrets(doc),
    ...checkNats(doc.services?.nats, doc),
    ...checkCluster(doc),
    ...checkPostgres(doc.services?.postgres),
    ...checkTracing(doc),
  ];
}

/**
 * D7: the `jaeger` profile runs a pinned Jaeger that takes OTLP, off by default, its UI on
 * loopback only; every service's endpoint is empty unless the operator sets it, so nothing is
 * traced (nor any SDK loaded) without asking for it.
 */
function checkTracing(doc: ComposeFile): string[] {
  const problems: string[] = [];
  for (const name of TRACING_SERVICES) {
    const service = doc.services?.[name];
    if (!service) {
      problems.push(`${name}: service missing`);
      continue;
    }
    if (!(service.profiles ?? []).includes('jaeger')) {
      problems.push(`${name}: not in the jaeger profile, so it would start by default`);
    }
    if (!/^jaegertracing\/all-in-one:\d+\.\d+\.\d+$/.test(String(service.image))) {
      problems.push(`${name}: image ${service.image} is not an exact jaegertracing/all-in-one`);
    }
    if (environmentOf(service).COLLECTOR_OTLP_ENABLED !== 'true') {
      problems.push(`${name}: OTLP is not enabled (COLLECTOR_OTLP_ENABLED)`);
    }
    for (const p of publishedPorts(service)) {
      if (p.host !== '127.0.0.1')
        problems.push(`${name}: port ${p.target} is published beyond 127.0.0.1`);
    }
  }
  for (const name of Object.keys(APP_SERVICES) as AppService[]) {
    const service = doc.services?.[name];
    if (!service) continue;
    const endpoint = environmentOf(service).OTEL_EXPORTER_OTLP_ENDPOINT;
    if (endpoint !== '${OTEL_EXPORTER_OTLP_ENDPOINT:-}') {
      problems.push(
        `${name}: OTEL_EXPORTER_OTLP_ENDPOINT is not empty unless set (\${OTEL_EXPORTER_OTLP_ENDPOINT:-})`,
      );
    }
  }
  return problems;
}

/** Every variable the compose file interpolates must be documented in .env.example. */
export function envExampleProblems(composeText: string, envExample: string): string[] {
  const documented = new Set(
    envExample
      .split('\n')
      .map((line) => /^([A-Z0-9_]+)=/.exec(line.trim())?.[1])
      .filter((name): name is string => name !== undefined),
  );
  // Full-line comments may mention ${VAR} in prose; only settings count.
  const settings = composeText
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n');
  const used = new Set([...settings.matchAll(INTERPOLATION)].map((match) => match[1]));
  return [...used]
    .filter((name) => !documented.has(name))
    .map((name) => `.env.example: ${name} is not listed`);
}

interface Stage {
  from: string;
  name: string;
  lines: string[];
}

function stagesOf(dockerfile: string): Stage[] {
  const stages: Stage[] = [];
  const joined = dockerfile.replace(/\\\n/g, ' ');
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ from: from[1], name: (from[2] ?? '').toLowerCase(), lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

const NODE_IMAGE = /^node:26\.\d+\.\d+-(bookworm|trixie)-slim@sha256:[0-9a-f]{64}$/;

export function dockerfileProblems(dockerfile: string): string[] {
  const problems: string[] = [];
  const stages = stagesOf(dockerfile);
  const build = stages.find((stage) => stage.name === 'build');
  const runtime = stages.find((stage) => stage.name === 'runtime');
  if (!build) return ['Dockerfile: no build stage (FROM … AS build)'];
  if (!runtime) return ['Dockerfile: no runtime stage (FROM … AS runtime)'];
  if (stages.at(-1) !== runtime) problems.push('Dockerfile: runtime is not the final stage');
  for (const stage of [build, runtime]) {
    // The current LTS (Node 26, Active LTS since 2026-10), at an exact version and pinned by
    // its digest, so a rebuild cannot pick up another image; never a floating tag such as
    // node:26-slim or node:lts.
    if (!NODE_IMAGE.test(stage.from)) {
      problems.push(
        `Dockerfile: ${stage.name} stage is ${stage.from}, not node:26.<minor>.<patch>-<debian>-slim@sha256:<digest>`,
      );
    }
  }
  if (build.from !== runtime.from) problems.push('Dockerfile: build and runtime differ in Node');
  const buildText = build.lines.join('\n');
  for (const step of ['npm ci', 'npm run build', 'npm prune --omit=dev']) {
    if (!buildText.includes(step)) problems.push(`Dockerfile: build stage does not run ${step}`);
  }
  const runtimeText = runtime.lines.join('\n');
  for (const copied of ['node_modules', 'dist']) {
    const pattern = new RegExp(`^COPY\\s+--from=build\\s+\\S*${copied}\\s`, 'm');
    if (!pattern.test(runtimeText)) {
      problems.push(`Dockerfile: runtime does not copy ${copied} from the build`);
    }
  }
  if (!/^ARG\s+SERVICE\b/m.test(runtimeText)) problems.push('Dockerfile: no ARG SERVICE');
  if (!/^ENV\s+SERVICE=\$\{?SERVICE\}?/m.test(runtimeText)) {
    problems.push('Dockerfile: SERVICE is not kept as ENV for the start command');
  }
  const users = [...runtimeText.matchAll(/^USER\s+(\S+)/gm)].map((match) => match[1]);
  if (users.at(-1) !== 'node') problems.push('Dockerfile: runtime does not run as user node');
  const start = [...runtimeText.matchAll(/^(CMD|ENTRYPOINT)\s+(.*)$/gm)].at(-1)?.[2] ?? '';
  if (!start.includes('dist/apps/$SERVICE/main.js')) {
    problems.push('Dockerfile: start command is not node dist/apps/$SERVICE/main.js');
  }
  if (start.includes('sh') && !start.includes('exec node')) {
    problems.push('Dockerfile: the shell does not exec node, so SIGTERM would not reach it');
  }
  return problems;
}
