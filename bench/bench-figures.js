// The arithmetic of the binding bench (binding.bench.mjs), apart from its plumbing so that
// test/bench/bench-figures.spec.ts can check that the bench computes what it claims:
// medians, ratios, CPU per output, the replica-scaling comparison and the targets.
// CommonJS, so both the .mjs bench and the jest suite load the same file.
'use strict';

/** The targets (issue 12, P3 and P4). */
const TARGETS = Object.freeze({
  /** binding outputs/s ÷ floor outputs/s at equal concurrency, at 0 and 50 ms. */
  bindingVsFloor: 0.8,
  /** (binding 2 replicas ÷ 1 replica) ÷ (floor 32 ÷ 16 in flight), at 50 ms, same run. */
  scalingVsFloor: 0.9,
});

function median(values) {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function ratio(numerator, denominator) {
  return denominator > 0 ? numerator / denominator : Number.NaN;
}

/** Outputs per second from a count and a wall time in milliseconds. */
function rate(outputs, elapsedMs) {
  return elapsedMs > 0 ? (outputs * 1000) / elapsedMs : Number.NaN;
}

/** CPU milliseconds (user + system) spent per output, summed over the processes that did it. */
function cpuMsPerOutput(cpuBeforeMs, cpuAfterMs, outputs) {
  const spent = cpuAfterMs.reduce((sum, after, i) => sum + (after - (cpuBeforeMs[i] ?? 0)), 0);
  return outputs > 0 ? spent / outputs : Number.NaN;
}

/**
 * CPU ms per output of the database backends serving a process, from their CPU by backend
 * pid before and after (pg-backends.mjs): a backend the pool opened meanwhile counts from 0;
 * one closed meanwhile is missing from `after` and its share is lost (pools here keep theirs).
 */
function backendCpuMsPerOutput(before, after, outputs) {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return outputs > 0 ? spent / outputs : Number.NaN;
}

/**
 * `/proc/<pid>/stat` → user + system CPU of that process in milliseconds. Fields 14 and 15
 * (utime, stime) count clock ticks; the command name (field 2) may hold spaces, so fields are
 * counted from after its closing parenthesis.
 */
function cpuMsFromProcStat(stat, ticksPerSecond = 100) {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime is field 14 → rest[11], stime field 15 → rest[12].
  const ticks = Number(rest[11]) + Number(rest[12]);
  return (ticks * 1000) / ticksPerSecond;
}

/**
 * One measured cell from its rounds: each round holds the floor's and the binding's outputs/s
 * and CPU ms per output, measured back to back. Medians are taken per figure.
 */
function cell(rounds) {
  const floor = median(rounds.map((r) => r.floor));
  const binding = median(rounds.map((r) => r.binding));
  const figures = {
    floor,
    binding,
    ratio: ratio(binding, floor),
    floorCpuMs: median(rounds.map((r) => r.floorCpuMs)),
    bindingCpuMs: median(rounds.map((r) => r.bindingCpuMs)),
    // The PostgreSQL backends serving each (undefined where a run did not read them).
    floorDbCpuMs: median(rounds.map((r) => r.floorDbCpuMs)),
    bindingDbCpuMs: median(rounds.map((r) => r.bindingDbCpuMs)),
    runs: rounds.length,
  };
  if (rounds.every((r) => r.agentFloor === undefined)) return figures;
  // The second floor: the same work over a keep-alive node:http Agent instead of fetch.
  const agentFloor = median(rounds.map((r) => r.agentFloor));
  return {
    ...figures,
    agentFloor,
    agentRatio: ratio(binding, agentFloor),
    agentFloorCpuMs: median(rounds.map((r) => r.agentFloorCpuMs)),
    agentFloorDbCpuMs: median(rounds.map((r) => r.agentFloorDbCpuMs)),
  };
}

/**
 * Scaling at one latency: what the binding gains from a second replica against what the
 * floor gains from twice the concurrency, measured in the same run.
 */
function scaling(one, two) {
  const bindingGain = ratio(two.binding, one.binding);
  const floorGain = ratio(two.floor, one.floor);
  return { bindingGain, floorGain, gainVsFloor: ratio(bindingGain, floorGain) };
}

/** Which targets a platform's cells meet; `cells` keyed `${latencyMs}:${replicas}`. */
function verdicts(cells) {
  const ratios = Object.entries(cells).map(([key, c]) => ({ key, ratio: c.ratio }));
  const worst = Math.min(...ratios.map((r) => r.ratio));
  const agentRatios = Object.values(cells)
    .map((c) => c.agentRatio)
    .filter((r) => r !== undefined);
  const at50 = scaling(cells['50:1'], cells['50:2']);
  return {
    worstRatio: worst,
    // Against the keep-alive http.Agent floor; undefined when no cell measured it.
    worstAgentRatio: agentRatios.length > 0 ? Math.min(...agentRatios) : undefined,
    bindingVsFloorMet: worst >= TARGETS.bindingVsFloor,
    scaling50: at50,
    scalingMet: at50.gainVsFloor >= TARGETS.scalingVsFloor,
  };
}

module.exports = {
  TARGETS,
  median,
  ratio,
  rate,
  cpuMsPerOutput,
  backendCpuMsPerOutput,
  cpuMsFromProcStat,
  cell,
  scaling,
  verdicts,
};
