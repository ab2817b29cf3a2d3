import { appendFileSync } from 'node:fs';
import { type Conversation, deriveSessionId, type Platform } from '@tollgate/protocol';
import type { ChatMessageView } from '../contract/platform-driver';
import { alice } from './commands';
import { PLATFORMS, type WholeSystem } from './whole-system.fixture';

export interface FlowFigures {
  readonly prompts: number;
  /** Prompts that never reached their final state (decided, buttons gone, tool reply shown). */
  readonly lost: number;
  /** Prompts shown twice, replies shown twice, or a tool run more than once. */
  readonly doubled: number;
  /** From the first message sent to the fault, in ms. */
  readonly faultAtMs: number;
  /** From the fault to the last prompt converged, in ms. */
  readonly convergeAfterFaultMs: number;
  /** From the first message sent to the last prompt converged, in ms. */
  readonly totalMs: number;
  /** Clicks sent again because nothing came of the first within RECLICK_AFTER_MS. */
  readonly reclicks: number;
  /** Requests a binding answered with something else than 200, which the test sent again. */
  readonly retriedRequests: number;
  /** What the first few prompts that did not converge or showed up twice show, to tell why. */
  readonly unconverged: readonly string[];
}

type Phase = 'new' | 'said' | 'clicked' | 'done';

interface Prompt {
  readonly index: number;
  readonly platform: Platform;
  readonly conversation: Conversation;
  phase: Phase;
  clickedAt: number;
  /** What the binding last answered when it did not take a request, to tell a stall's cause. */
  lastRefusal?: string;
}

/** A person clicks again when a click showed no effect for this long, as people do. */
const RECLICK_AFTER_MS = 20_000;
const SEND_CONCURRENCY = 12;
/** How every binding asks a person to repeat what it could not take (issue 11, R1). */
const TRY_AGAIN = /please (send it|click|try) again/i;

const decided = (m: ChatMessageView) =>
  m.buttons.length === 0 && m.edits > 0 && m.text.includes('Approve once');
/**
 * What follows the decision: the tool's reply, or, when the session service died while the
 * tool ran, the notice that it may not have completed (a started tool is never run again).
 */
const reply = (m: ChatMessageView) =>
  m.buttons.length === 0 &&
  (m.text.includes('write_note: ') || m.text.includes('restarted while write_note ran'));
const ranTwice = (m: ChatMessageView) =>
  m.text.includes('write_note: ') && !m.text.includes('write_note: 1');

/**
 * Drives `count` approval prompts through chat, spread over the three platforms: a person asks
 * for a gated tool, the prompt appears, they approve it, the prompt shows the decision and the
 * tool's reply (or the notice that it was interrupted) follows. `fault` runs once `faultAfter` of
 * the prompts have been clicked; the flow then waits until every prompt has converged (or
 * `timeoutMs` passes) and counts what went missing or showed up twice.
 */
export async function runPromptFlow(
  system: WholeSystem,
  {
    count,
    fault,
    faultAfter = 1 / 3,
    faultDuringAsks = true,
    timeoutMs,
  }: {
    count: number;
    fault: () => Promise<void>;
    faultAfter?: number;
    /** Let the fault come while people are still asking (the default), or only after. */
    faultDuringAsks?: boolean;
    timeoutMs: number;
  },
): Promise<FlowFigures> {
  const prompts: Prompt[] = Array.from({ length: count }, (_, index) => {
    const platform = PLATFORMS[index % PLATFORMS.length];
    return {
      index,
      platform,
      conversation: system.driver(platform).freshConversation(),
      phase: 'new',
      clickedAt: 0,
    };
  });
  let retriedRequests = 0;
  let reclicks = 0;
  const started = Date.now();
  const deadline = started + timeoutMs;

  /**
   * Sends until the binding takes it: a platform retries what is not answered 200 (Slack,
   * Mattermost commands), and a person sends again what is answered "please … again" (R1's
   * Discord answers and Mattermost click notices).
   */
  /** Requests under way, by prompt, and where each is: what a stall report shows. */
  const sending = new Map<Prompt, { stage: string; since: number }>();
  const send = async (p: Prompt, request: () => Promise<Response>): Promise<void> => {
    try {
      for (;;) {
        try {
          sending.set(p, { stage: 'request', since: Date.now() });
          const response = await request();
          sending.set(p, { stage: `body of ${response.status}`, since: Date.now() });
          const answer = await response.text();
          if (response.status === 200 && !TRY_AGAIN.test(answer)) return;
          p.lastRefusal = `${response.status} ${answer.slice(0, 120)}`;
        } catch (error) {
          // Refused connection while the binding restarts.
          p.lastRefusal = String(error);
        }
        retriedRequests += 1;
        if (Date.now() > deadline) throw new Error('a binding refused requests until the deadline');
        sending.set(p, { stage: 'pause', since: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      sending.delete(p);
    }
  };

  const say = (p: Prompt) =>
    send(p, () =>
      system
        .driver(p.platform)
        .say(
          system.bindingUrl(p.platform),
          p.conversation,
          `!write_note {"text":"flow ${p.index}"}`,
          alice,
        ),
    );

  const clickIfShown = async (p: Prompt): Promise<boolean> => {
    const driver = system.driver(p.platform);
    const prompt = driver.messagesIn(p.conversation).find((m) => m.buttons.length > 0);
    const approve = prompt?.buttons.find((b) => b.label === 'Approve once');
    if (!prompt || !approve) return false;
    await send(p, () => driver.click(system.bindingUrl(p.platform), prompt, approve, alice));
    p.clickedAt = Date.now();
    return true;
  };

  const converged = (p: Prompt): boolean => {
    const messages = system.driver(p.platform).messagesIn(p.conversation);
    return messages.filter(decided).length === 1 && messages.some(reply);
  };

  let faultAt: number | undefined;
  let faulted: Promise<void> | undefined;
  const pool = async <T>(items: T[], work: (item: T) => Promise<void>) => {
    const queue = [...items];
    await Promise.all(
      Array.from({ length: SEND_CONCURRENCY }, async () => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
      }),
    );
  };

  const saying = pool(prompts, async (p) => {
    await say(p);
    p.phase = 'said';
  });
  let lastDone = started;
  // TOLLGATE_FAULT_PROGRESS, a file (bench:faults sets it): where a long run is, every 10 s,
  // so a stall shows which phase and platform it is in, and why, while it happens.
  const progress = process.env.TOLLGATE_FAULT_PROGRESS;
  const watchdog =
    progress === undefined
      ? undefined
      : setInterval(() => {
          const now = Date.now();
          // A flow that threw past its deadline reports no more.
          if (now > deadline + 60_000) clearInterval(watchdog);
          const count = (phase: Phase, platform: Platform) =>
            prompts.filter((p) => p.phase === phase && p.platform === platform).length;
          const line = PLATFORMS.map(
            (pl) =>
              `${pl} new/said/clicked/done ${count('new', pl)}/${count('said', pl)}/${count('clicked', pl)}/${count('done', pl)}`,
          ).join(' · ');
          const stuck = [...sending]
            .filter(([, s]) => now - s.since > 5_000)
            .slice(0, 5)
            .map(
              ([p, s]) =>
                `#${p.index} ${p.platform} ${p.phase}: ${s.stage} for ${now - s.since} ms (last refusal: ${p.lastRefusal ?? 'none'})`,
            );
          appendFileSync(
            progress,
            `flow +${Math.round((now - started) / 1000)} s${faultAt ? ' (faulted)' : ''}: ${line}; sending ${sending.size}, retried ${retriedRequests}, reclicks ${reclicks}\n${stuck.map((r) => `  ${r}\n`).join('')}`,
          );
        }, 10_000);
  watchdog?.unref();
  for (;;) {
    const now = Date.now();
    const toClick = prompts.filter(
      (p) =>
        p.phase === 'said' ||
        (p.phase === 'clicked' && now - p.clickedAt > RECLICK_AFTER_MS && !converged(p)),
    );
    await pool(toClick, async (p) => {
      const again = p.phase === 'clicked';
      if (!(await clickIfShown(p))) return;
      p.phase = 'clicked';
      if (again) reclicks += 1;
    });
    for (const p of prompts) {
      if (p.phase === 'clicked' && converged(p)) {
        p.phase = 'done';
        lastDone = Date.now();
      }
    }
    const clicked = prompts.filter((p) => p.phase === 'clicked' || p.phase === 'done').length;
    const asked = prompts.every((p) => p.phase !== 'new');
    if (!faulted && (asked || faultDuringAsks) && clicked >= Math.ceil(count * faultAfter)) {
      faultAt = Date.now();
      faulted = fault();
    }
    if (faulted && prompts.every((p) => p.phase === 'done')) break;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await saying;
  await faulted;
  clearInterval(watchdog);

  let doubled = 0;
  const twice: Prompt[] = [];
  for (const p of prompts) {
    const messages = system.driver(p.platform).messagesIn(p.conversation);
    const replies = messages.filter(reply);
    if (
      messages.length > 2 ||
      messages.filter(decided).length > 1 ||
      replies.length > 1 ||
      replies.some(ranTwice)
    ) {
      doubled += 1;
      twice.push(p);
    }
  }
  const missing = prompts.filter((p) => p.phase !== 'done');
  const lost = missing.length;
  const unconverged = await Promise.all(
    [...missing.slice(0, 5), ...twice.slice(0, 5)].map(async (p) => {
      const messages = system.driver(p.platform).messagesIn(p.conversation);
      const shown = messages.map(
        (m) => `[${m.buttons.length} buttons, ${m.edits} edits] ${m.text.slice(0, 80)}`,
      );
      const sessionId = deriveSessionId(p.conversation);
      const unreadable = (error: unknown) => [`unreadable: ${String(error)}`];
      const journal = await system.sessionJournal(sessionId).catch(unreadable);
      const prompts = await system.bindingJournal(p.platform, sessionId).catch(unreadable);
      const logged = system.bindingLog(p.platform, sessionId);
      return (
        `${p.platform} #${p.index} ${p.phase}: ${shown.join(' | ') || 'nothing shown'}; ` +
        `session journal: ${journal.join(', ')}; binding journal: ${prompts.join(', ')}; ` +
        `binding log: ${logged.join(' / ') || 'nothing'}`
      );
    }),
  );
  return {
    prompts: count,
    lost,
    doubled,
    faultAtMs: (faultAt ?? started) - started,
    convergeAfterFaultMs: lastDone - (faultAt ?? started),
    totalMs: lastDone - started,
    reclicks,
    retriedRequests,
    unconverged,
  };
}

/** 0 lost, 0 doubled, and the sessions ran every approved tool exactly once (R6, R7). */
export async function expectConverged(
  system: WholeSystem,
  figures: FlowFigures,
  prompts: number,
): Promise<void> {
  if (figures.lost + figures.doubled > 0) {
    process.stdout.write(`dead letters: ${JSON.stringify(await system.deadLetters())}\n`);
  }
  expect({
    lost: figures.lost,
    doubled: figures.doubled,
    unconverged: figures.unconverged,
  }).toEqual({ lost: 0, doubled: 0, unconverged: [] });
  await system.untilIdle(60_000);
  const runs = await system.sessionEventCounts('ToolExecutionStarted');
  expect(runs.size).toBe(prompts);
  expect([...runs.values()].filter((n) => n !== 1)).toEqual([]);
}
