import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { type Browser, launchChromium } from '../support/chromium';
import { TEST_DATABASE_URL, withClient } from '../support/database';
import { connectTestNats, deleteStreams, TEST_NATS_URL } from '../support/nats';
import { postJournaled } from '../support/post-journaled';
import { type SandboxProcess, startSandbox } from '../support/sandbox-process';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * (browser) The sandbox page in Chromium: the whole product behind it (session-service, three
 * bindings, the platform stand-ins), driven only through the page, as a newcomer would.
 * Screenshots go to .tmp/screenshots/; with TOLLGATE_UPDATE_DOCS_IMG=1 the last one also
 * becomes docs/img/sandbox.png, the README's picture.
 */
const ROOT = join(__dirname, '..', '..');
const SHOTS = join(ROOT, '.tmp', 'screenshots');
const PLATFORMS = ['slack', 'discord', 'mattermost'] as const;
const SERVICES = [
  'session-service',
  'slack-binding',
  'discord-binding',
  'mattermost-binding',
  'approval-api',
];
const NOTE = '!fs__write_file {"path": "note.txt", "content": "buy milk"}';

let sandbox: SandboxProcess;
let browser: Browser;
let page: Page;
let dataDir: string;
const prefix = uniqueToken('sbx').slice(0, 20);

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-sandbox-'));
  sandbox = await startSandbox({
    DATABASE_URL: TEST_DATABASE_URL,
    NATS_URL: TEST_NATS_URL,
    TOLLGATE_SUBJECT_PREFIX: prefix,
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_DRAIN_MS: '3000',
    TOLLGATE_RETRY_BASE_MS: '50',
    LOG_LEVEL: 'warn',
  });
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.goto(sandbox.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop('SIGINT');
  const nc = await connectTestNats();
  await deleteStreams(nc, prefix);
  await nc.close();
  await withClient(async (client) => {
    for (const service of SERVICES) {
      await client.query(`DROP SCHEMA IF EXISTS "${prefix}_${service.replace(/-/g, '_')}" CASCADE`);
    }
  });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const panelOf = (platform: string): Locator => page.locator(`.panel[data-platform="${platform}"]`);

/** The panel's text right now; empty while it is being swapped. */
const textOf = (locator: Locator): Promise<string> =>
  locator.innerText({ timeout: 1_000 }).catch(() => '');

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function pick(platform: string, person: 'alice' | 'bob'): Promise<void> {
  await panelOf(platform).locator('select[name=person]').selectOption(person);
}

async function send(platform: string, text: string): Promise<void> {
  const panel = panelOf(platform);
  await panel.locator('textarea').fill(text);
  await panel.getByRole('button', { name: 'Send' }).click();
  await waitFor(`${platform}: the binding to accept the message`, async () =>
    /answered 200/.test(await textOf(panel.locator('.last-request'))),
  );
}

/** The sandbox gives each platform's binding its journal in `<prefix>_<platform>_binding`. */
const journaled = (platform: string, id: string): Promise<void> =>
  postJournaled(`${prefix}_${platform}_binding`, id, `${platform}: the binding`);

/**
 * Sends the gated tool call and returns the id of the prompt it brings, once it has buttons and
 * its binding has journaled it (only then can it be answered).
 */
async function askForPrompt(platform: string, text = NOTE): Promise<string> {
  const panel = panelOf(platform);
  const before = await panel.locator('article.message').count();
  if (text === NOTE) {
    await panel.locator('.chip', { hasText: 'write a note' }).click();
    expect(await panel.locator('textarea').inputValue()).toBe(NOTE);
  }
  await send(platform, text);
  const id = await waitFor(`${platform}: a new prompt with buttons`, async () => {
    const prompts = panel.locator('article.message', {
      has: page.getByRole('button', { name: 'Approve once' }),
    });
    if ((await panel.locator('article.message').count()) <= before) return undefined;
    const last = prompts.last();
    return (await last.count()) > 0
      ? ((await last.getAttribute('data-message-id')) ?? undefined)
      : undefined;
  });
  await journaled(platform, id);
  return id;
}

const messageById = (platform: string, id: string): Locator =>
  panelOf(platform).locator(`article.message[data-message-id="${id}"]`);

async function click(platform: string, id: string, label: string): Promise<void> {
  await messageById(platform, id).getByRole('button', { name: label }).click();
  await waitFor(`${platform}: the binding to accept the click`, async () =>
    /clicked .* the binding answered 200/.test(
      await textOf(panelOf(platform).locator('.last-request')),
    ),
  );
}

async function serviceState(name: string): Promise<string> {
  return textOf(page.locator(`.service[data-service="${name}"] .state`));
}

describe('W2 — the sandbox page', () => {
  it('W2 shows three panels, a person picker, example chips and every service with its health, on 127.0.0.1 only', async () => {
    await expect(page.locator('.panel h2').allInnerTexts()).resolves.toEqual([
      expect.stringContaining('Slack'),
      expect.stringContaining('Discord'),
      expect.stringContaining('Mattermost'),
    ]);
    for (const platform of PLATFORMS) {
      const options = await panelOf(platform).locator('select[name=person] option').allInnerTexts();
      expect(options).toEqual(['Alice', 'Bob']);
      await expect(panelOf(platform).locator('.chip').allInnerTexts()).resolves.toContain(
        'write a note (asks first)',
      );
    }
    for (const service of SERVICES) {
      await waitFor(
        `${service} shown ready`,
        async () => (await serviceState(service)) === 'ready',
      );
    }
    // Bound to loopback: the machine's other addresses do not answer on the page's port.
    const port = Number(new URL(sandbox.url).port);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);
    for (const address of others) {
      await expect(fetch(`http://${address}:${port}/`)).rejects.toThrow();
    }
    // Another site cannot drive it.
    const forged = await fetch(`${sandbox.url}/api/services/session-service/kill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: '{}',
    });
    expect(forged.status).toBe(403);
    await shoot('w2-page');
  });

  it('W2 kill -9 takes a binding down, shown in its health, and restart brings it back', async () => {
    const controls = page.locator('.service[data-service="slack-binding"]');
    await controls.getByRole('button', { name: 'kill -9' }).click();
    await waitFor(
      'slack-binding shown killed',
      async () => (await serviceState('slack-binding')) === 'killed',
    );
    await page
      .locator('.service[data-service="slack-binding"]')
      .getByRole('button', { name: 'restart' })
      .click();
    await waitFor(
      'slack-binding shown ready again',
      async () => (await serviceState('slack-binding')) === 'ready',
      {
        timeoutMs: 20_000,
      },
    );
  });
});

describe.each(PLATFORMS)('the %s panel', (platform) => {
  it(`W3 ${platform}: ask → a prompt with buttons → approve → resolved, showing who`, async () => {
    await pick(platform, 'alice');
    const id = await askForPrompt(platform);
    const prompt = messageById(platform, id);
    expect(await textOf(prompt)).toContain('buy milk');
    await click(platform, id, 'Approve once');
    await waitFor(`${platform}: the prompt resolved by Alice, without buttons`, async () => {
      const text = await textOf(prompt);
      return (
        (await prompt.locator('button.action').count()) === 0 &&
        /Approve once/.test(text) &&
        /Alice|alice/.test(text)
      );
    });
    await waitFor(`${platform}: the tool's result`, async () =>
      (await textOf(panelOf(platform).locator('.conversation'))).includes(
        'fs__write_file: Successfully wrote',
      ),
    );
    // Every message was answered as the platform shows it (Discord: the interaction's answer).
    expect(await textOf(panelOf(platform).locator('.conversation'))).not.toContain(
      'Tollgate is thinking',
    );
    await shoot(`w3-${platform}`);
  });

  it(`W4 ${platform}: restart the agent → "still valid" and "restart" shown, the same buttons work after`, async () => {
    await pick(platform, 'alice');
    const id = await askForPrompt(platform);
    const prompt = messageById(platform, id);
    const starts = await serviceState('session-service');
    expect(starts).toBe('ready');
    await page
      .locator('.service[data-service="session-service"]')
      .getByRole('button', { name: 'restart' })
      .click();
    await waitFor(
      `${platform}: the same prompt says it is still valid after the restart`,
      async () => {
        const text = await textOf(prompt);
        return /still valid/i.test(text) && /restart/i.test(text);
      },
      { timeoutMs: 30_000 },
    );
    await shoot(`w4-${platform}-refreshed`);
    await click(platform, id, 'Approve once');
    await waitFor(`${platform}: the refreshed prompt resolved`, async () => {
      const text = await textOf(prompt);
      return (
        (await prompt.locator('button.action').count()) === 0 &&
        /Approve once/.test(text) &&
        !/still valid/i.test(text)
      );
    });
  });

  it(`W5 ${platform}: a new message → the old prompt loses its buttons and shows "superseded"`, async () => {
    await pick(platform, 'alice');
    const id = await askForPrompt(platform);
    const prompt = messageById(platform, id);
    await send(platform, 'never mind');
    await waitFor(
      `${platform}: the old prompt superseded, without buttons`,
      async () =>
        (await prompt.locator('button.action').count()) === 0 &&
        /superseded/i.test(await textOf(prompt)),
    );
    await waitFor(`${platform}: the new message answered`, async () =>
      (await textOf(panelOf(platform).locator('.conversation'))).includes('You said: never mind'),
    );
    await shoot(`w5-${platform}`);
  });

  it(`W6 ${platform}: Bob clicks Alice's prompt → only Bob sees the notice, and nothing runs`, async () => {
    await pick(platform, 'alice');
    const id = await askForPrompt(platform);
    const prompt = messageById(platform, id);
    const conversation = panelOf(platform).locator('.conversation');
    const resultsBefore = (await textOf(conversation)).split('fs__write_file: Successfully').length;

    await pick(platform, 'bob');
    await waitFor(`${platform}: the panel shown to Bob`, async () => (await prompt.count()) === 1);
    await click(platform, id, 'Approve once');
    const notice = panelOf(platform).locator('article.message.private', {
      hasText: /only the person who asked/i,
    });
    await waitFor(`${platform}: a notice only Bob sees`, async () => (await notice.count()) > 0);
    expect(await textOf(notice.last())).toMatch(/only the person who asked/i);
    await shoot(`w6-${platform}-bob`);
    // Nothing ran: the prompt still offers its buttons and no result was posted.
    expect(await prompt.getByRole('button', { name: 'Approve once' }).count()).toBe(1);
    expect((await textOf(conversation)).split('fs__write_file: Successfully').length).toBe(
      resultsBefore,
    );

    await pick(platform, 'alice');
    await waitFor(`${platform}: the panel shown to Alice, without Bob's notice`, async () =>
      (await notice.count()) === 0 && (await prompt.count()) === 1 ? true : undefined,
    );
    // Alice's buttons still work: Bob's click took nothing from her.
    await click(platform, id, 'Deny');
    await waitFor(
      `${platform}: Alice's denial shown`,
      async () =>
        (await prompt.locator('button.action').count()) === 0 && /Deny/.test(await textOf(prompt)),
    );
  });
});

describe.each(PLATFORMS)('the %s panel, real MCP tools', (platform) => {
  const workspace = () => join(dataDir, 'workspace');
  const write = (name: string) =>
    `!fs__write_file {"path": "${name}", "content": "from ${platform}"}`;

  it(`M5 ${platform}: a real fs__write_file behind a prompt — approve → the file exists and the page lists it; deny → no file`, async () => {
    await pick(platform, 'alice');
    const approved = `w7-${platform}.txt`;
    const id = await askForPrompt(platform, write(approved));
    await click(platform, id, 'Approve once');
    // The filesystem server creates the file and then writes it (not atomically): a file that
    // exists may still be empty for a moment, so wait for its content, not its name.
    const written = join(workspace(), approved);
    await waitFor(`${platform}: the file written`, () =>
      existsSync(written) && readFileSync(written, 'utf8') === `from ${platform}`
        ? true
        : undefined,
    );
    await waitFor(`${platform}: the page lists the file`, async () =>
      (await textOf(page.locator('.workspace'))).includes(approved),
    );

    const denied = `w7-${platform}-denied.txt`;
    const second = await askForPrompt(platform, write(denied));
    await click(platform, second, 'Deny');
    await waitFor(`${platform}: the denial answered`, async () =>
      (await textOf(panelOf(platform).locator('.conversation'))).includes('fs__write_file: denied'),
    );
    expect(existsSync(join(workspace(), denied))).toBe(false);
  });
});

describe.each(PLATFORMS)('the %s panel, edit & approve', (platform) => {
  const workspace = () => join(dataDir, 'workspace');
  const makeDir = (path: string) => `!fs__create_directory {"path": ${JSON.stringify(path)}}`;

  /** Clicks "Edit & approve" and returns the platform's form once the page shows it. */
  async function openForm(id: string): Promise<Locator> {
    await click(platform, id, 'Edit & approve');
    const form = panelOf(platform).locator('form.platform-form');
    await waitFor(`${platform}: the platform's form shown`, async () => (await form.count()) === 1);
    return form;
  }

  it(`W7 ${platform}: Edit & approve opens the platform's form prefilled; a narrower path runs with it and the prompt shows the change`, async () => {
    await pick(platform, 'alice');
    // The page offers the editable call as a chip, in this sandbox's workspace.
    const chip = panelOf(platform).locator('.chip', { hasText: 'make a folder' });
    expect(await chip.getAttribute('data-text')).toBe(makeDir(join(workspace(), 'drafts')));
    const asked = join(workspace(), `w7-${platform}`);
    const id = await askForPrompt(platform, makeDir(asked));
    const form = await openForm(id);
    const field = form.locator('input, textarea').first();
    expect(await field.inputValue()).toBe(asked);
    expect(await textOf(form)).toContain(`under ${workspace()}`);
    await shoot(`w7-${platform}-form`);

    await field.fill(`${asked}/narrow`);
    await form.locator('button.form-submit').click();
    const prompt = messageById(platform, id);
    await waitFor(`${platform}: the prompt resolved with the change`, async () => {
      const text = await textOf(prompt);
      return (
        (await prompt.locator('button.action').count()) === 0 &&
        text.includes('→') &&
        text.includes(`w7-${platform}/narrow`)
      );
    });
    await waitFor(`${platform}: the narrower folder made`, () => existsSync(join(asked, 'narrow')));
    expect(await panelOf(platform).locator('form.platform-form').count()).toBe(0);
    await shoot(`w7-${platform}-edited`);
  });

  it(`W7 ${platform}: a widened path is refused privately, nothing runs, and the prompt keeps its buttons`, async () => {
    await pick(platform, 'alice');
    const wide = join(workspace(), `w7-${platform}-wide`);
    const id = await askForPrompt(platform, makeDir(join(wide, 'inner')));
    const form = await openForm(id);
    await form.locator('input, textarea').first().fill(wide);
    await form.locator('button.form-submit').click();
    const notice = panelOf(platform).locator('article.message.private', {
      hasText: /Nothing was run/,
    });
    await waitFor(`${platform}: the private reason`, async () => (await notice.count()) > 0);
    expect(await textOf(notice.last())).toMatch(/must stay under/);
    await shoot(`w7-${platform}-refused`);
    const prompt = messageById(platform, id);
    expect(await prompt.getByRole('button', { name: 'Approve once' }).count()).toBe(1);
    expect(existsSync(wide)).toBe(false);
    // The prompt still decides: denied, and the folder is never made.
    await click(platform, id, 'Deny');
    await waitFor(
      `${platform}: the denial shown`,
      async () => (await prompt.locator('button.action').count()) === 0,
    );
    expect(existsSync(wide)).toBe(false);
  });
});

describe.each(PLATFORMS)('the %s panel, an outside agent', (platform) => {
  it(`A7 ${platform}: the "agent" control sends a Claude Code hook → its prompt shows the command → approved in the panel, the page shows what Claude Code was told`, async () => {
    const panel = panelOf(platform);
    await pick(platform, 'alice');
    const before = await panel.locator('article.message').count();
    await panel.locator('button.agent').click();
    const id = await waitFor(`${platform}: the agent's prompt`, async () => {
      if ((await panel.locator('article.message').count()) <= before) return undefined;
      const last = panel
        .locator('article.message', { has: page.getByRole('button', { name: 'Approve once' }) })
        .last();
      return (await last.count()) > 0 && /npm publish/.test(await textOf(last))
        ? ((await last.getAttribute('data-message-id')) ?? undefined)
        : undefined;
    });
    await journaled(platform, id);
    const prompt = await textOf(messageById(platform, id));
    expect(prompt).toContain('Bash');
    expect(prompt).toContain('npm publish --tag next');
    expect(await textOf(panel.locator('.agent-answer'))).toMatch(/waits for an answer/);
    await click(platform, id, 'Approve once');
    const told = await waitFor(`${platform}: what the agent was told`, async () => {
      const text = await textOf(panel.locator('.agent-answer'));
      return /Claude Code was told/.test(text) ? text : undefined;
    });
    expect(told).toContain('(200)');
    expect(told).toContain('"behavior": "allow"');
    await shoot(`a7-${platform}`);
  });
});

describe('the README picture', () => {
  it('W2 after every scenario, the page shows all three conversations side by side', async () => {
    const shot = join(SHOTS, 'sandbox.png');
    // A live prompt in every panel, refreshed by a restart: the picture shows what Tollgate is for.
    const prompts = new Map<string, string>();
    for (const platform of PLATFORMS) {
      await pick(platform, 'alice');
      prompts.set(platform, await askForPrompt(platform));
    }
    await page
      .locator('.service[data-service="session-service"]')
      .getByRole('button', { name: 'restart' })
      .click();
    for (const [platform, id] of prompts) {
      await waitFor(
        `${platform}: the prompt still valid`,
        async () => /still valid/i.test(await textOf(messageById(platform, id))),
        { timeoutMs: 30_000 },
      );
    }
    await waitFor(
      'the session-service ready again',
      async () => (await serviceState('session-service')) === 'ready',
    );
    await page.screenshot({ path: shot });
    if (process.env.TOLLGATE_UPDATE_DOCS_IMG === '1') {
      mkdirSync(join(ROOT, 'docs', 'img'), { recursive: true });
      copyFileSync(shot, join(ROOT, 'docs', 'img', 'sandbox.png'));
    }
    expect(await page.locator('article.message').count()).toBeGreaterThan(12);
  });
});
