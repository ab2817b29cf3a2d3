import { configuredSecrets } from './configured-secrets';

describe('X4 configuredSecrets', () => {
  it('X4 takes secret-named values and URL credentials, never public keys or plain settings', () => {
    const secrets = configuredSecrets({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 'sign',
      MATTERMOST_ACTION_SECRET: 'act',
      NATS_PASSWORD: 'np',
      OPENAI_API_KEY: 'sk-1',
      NATS_CREDENTIALS: 'creds',
      DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
      DATABASE_URL: 'postgres://app:db%40pw@db:5432/t?sslpassword=kp',
      NATS_URL: 'nats://svc:natspw@a:4222, nats://tok3n@b:4222',
      DISCORD_API_URL: 'https://discord.com/api',
      PORT: 3000,
      LOG_LEVEL: 'debug',
    });
    expect(secrets.sort()).toEqual(
      [
        'xoxb-1',
        'sign',
        'act',
        'np',
        'sk-1',
        'creds',
        'db%40pw',
        'db@pw',
        'kp',
        'natspw',
        'tok3n',
      ].sort(),
    );
  });
});
