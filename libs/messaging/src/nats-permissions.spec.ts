import { NATS_ROLES, natsPermissions, roleInboxPrefix } from './nats-permissions';
import { passwordVariable, renderNatsServerConfig } from './nats-server-config.renderer';

describe('natsPermissions', () => {
  it('lets the session-service consume commands and publish outputs and decisions, nothing else', () => {
    expect(natsPermissions('tollgate', 'session-service')).toEqual({
      publish: [
        'tollgate.out.>',
        'tollgate.decision.>',
        'tollgate.dlq.session-service',
        '$JS.API.INFO',
        '$JS.API.STREAM.INFO.TOLLGATE_CMD',
        '$JS.API.STREAM.INFO.TOLLGATE_OUT',
        '$JS.API.STREAM.INFO.TOLLGATE_DLQ',
        '$JS.API.STREAM.INFO.TOLLGATE_DECISION',
        '$JS.API.CONSUMER.INFO.TOLLGATE_CMD.session-service',
        '$JS.API.CONSUMER.MSG.NEXT.TOLLGATE_CMD.session-service',
        '$JS.ACK.TOLLGATE_CMD.session-service.>',
      ],
      subscribe: ['_INBOX.tollgate.session-service.>'],
    });
  });

  it("confines a binding to its platform's commands, its durable and its DLQ subject", () => {
    expect(natsPermissions('tg', 'discord-binding')).toEqual({
      publish: [
        'tg.cmd.discord.>',
        'tg.dlq.discord-binding',
        '$JS.API.INFO',
        '$JS.API.CONSUMER.INFO.TG_OUT.discord-binding',
        '$JS.API.CONSUMER.MSG.NEXT.TG_OUT.discord-binding',
        '$JS.ACK.TG_OUT.discord-binding.>',
      ],
      subscribe: ['_INBOX.tg.discord-binding.>'],
    });
  });

  it('lets approval-api ask for approvals and read its decisions, and address no platform', () => {
    const { publish, subscribe } = natsPermissions('tollgate', 'approval-api');
    expect(publish.filter((s) => s.startsWith('tollgate.'))).toEqual([
      'tollgate.cmd.api.>',
      'tollgate.dlq.approval-api',
    ]);
    expect(publish).toContain('$JS.API.CONSUMER.INFO.TOLLGATE_DECISION.approval-api');
    expect(publish).toContain('$JS.API.CONSUMER.MSG.NEXT.TOLLGATE_DECISION.approval-api');
    expect(publish).toContain('$JS.ACK.TOLLGATE_DECISION.approval-api.>');
    expect(publish.filter((s) => s.includes('TOLLGATE_OUT'))).toEqual([]);
    expect(subscribe).toEqual(['_INBOX.tollgate.approval-api.>']);
  });

  it.each(NATS_ROLES.filter((role) => role !== 'operator'))(
    'X11 gives %s no way to create a stream or a durable, and stream info only to the session-service',
    (role) => {
      const { publish } = natsPermissions('tollgate', role);
      expect(publish.filter((s) => /\.(CREATE|DURABLE)\./.test(s))).toEqual([]);
      const streamInfo = publish.filter((s) => s.includes('STREAM.'));
      if (role === 'session-service') {
        expect(streamInfo.every((s) => s.startsWith('$JS.API.STREAM.INFO.'))).toBe(true);
      } else {
        expect(streamInfo).toEqual([]);
      }
    },
  );

  it.each(NATS_ROLES)('gives %s no way to delete, purge or update, nor a shared inbox', (role) => {
    const { publish, subscribe } = natsPermissions('tollgate', role);
    expect(publish.filter((s) => /DELETE|PURGE|UPDATE|SNAPSHOT|RESTORE|LEADER/.test(s))).toEqual(
      [],
    );
    expect(publish.some((s) => s === '>' || s === '$JS.API.>' || s === 'tollgate.>')).toBe(false);
    expect(subscribe).toEqual([`${roleInboxPrefix('tollgate', role)}.>`]);
  });

  it('lets the operator provision, read, and replay dead letters, but delete nothing', () => {
    const { publish } = natsPermissions('tollgate', 'operator');
    expect(publish).toContain('$JS.API.STREAM.MSG.GET.TOLLGATE_DLQ');
    expect(publish).toContain(
      '$JS.API.CONSUMER.CREATE.TOLLGATE_OUT.mattermost-binding.tollgate.out.mattermost.>',
    );
    // A replay goes back to the original subject; its marker is the only DLQ subject written,
    // so the operator cannot pose as a service dead-lettering something.
    expect(publish.filter((s) => s.startsWith('tollgate.'))).toEqual([
      'tollgate.cmd.>',
      'tollgate.out.>',
      'tollgate.dlq.replayed.*',
    ]);
    expect(publish.filter((s) => s.includes('MSG.DELETE'))).toEqual([]);
  });
});

describe('renderNatsServerConfig', () => {
  const text = renderNatsServerConfig('tollgate');

  it('has one user per role, each with its password referenced from the environment', () => {
    for (const role of NATS_ROLES) {
      expect(text).toContain(`user: "${role}"\n      password: $${passwordVariable(role)}\n`);
    }
    expect(passwordVariable('mattermost-binding')).toBe('NATS_PASSWORD_MATTERMOST_BINDING');
  });

  it('leaves no way in without a user', () => {
    expect(text).not.toMatch(/no_auth_user|allow_responses/);
  });
});
