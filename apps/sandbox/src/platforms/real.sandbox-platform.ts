import type { Platform } from '@tollgate/protocol';
import type { PanelView, SandboxPlatform } from './sandbox-platform.port';

/**
 * A platform whose real secrets are set: its binding talks to the real Slack, Discord or
 * Mattermost, which sends it messages and clicks itself. The panel only says so.
 */
export class RealSandboxPlatform implements SandboxPlatform {
  constructor(
    readonly platform: Platform,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  bindingEnv(): Record<string, string> {
    return this.env;
  }

  agentRoute(): undefined {
    return undefined;
  }

  async say(): Promise<number> {
    return 409;
  }

  async click(): Promise<number> {
    return 409;
  }

  async submitForm(): Promise<number> {
    return 409;
  }

  closeForm(): boolean {
    return false;
  }

  view(): PanelView {
    return { platform: this.platform, real: true, messages: [] };
  }

  fingerprint(): string {
    return 'real';
  }

  snapshot(): unknown {
    return undefined;
  }

  restore(): void {}
}
