// eslint-disable-next-line @typescript-eslint/no-require-imports
const figures = require('../../bench/bench-figures.js') as {
  TARGETS: { bindingVsFloor: number; scalingVsFloor: number };
  median(values: number[]): number;
  rate(outputs: number, elapsedMs: number): number;
  cpuMsPerOutput(before: number[], after: number[], outputs: number): number;
  backendCpuMsPerOutput(
    before: Map<number, number>,
    after: Map<number, number>,
    outputs: number,
  ): number;
  cpuMsFromProcStat(stat: string, ticksPerSecond?: number): number;
  cell(
    rounds: {
      floor: number;
      binding: number;
      floorCpuMs: number;
      bindingCpuMs: number;
      agentFloor?: number;
      agentFloorCpuMs?: number;
    }[],
  ): {
    floor: number;
    binding: number;
    ratio: number;
    floorCpuMs: number;
    bindingCpuMs: number;
    agentFloor?: number;
    agentRatio?: number;
    agentFloorCpuMs?: number;
  };
  scaling(
    one: { floor: number; binding: number },
    two: { floor: number; binding: number },
  ): { bindingGain: number; floorGain: number; gainVsFloor: number };
  verdicts(
    cells: Record<string, { floor: number; binding: number; ratio: number; agentRatio?: number }>,
  ): {
    worstRatio: number;
    worstAgentRatio?: number;
    bindingVsFloorMet: boolean;
    scalingMet: boolean;
  };
};

describe('P2–P4 — the bench arithmetic', () => {
  it('P3 each figure is the median of its runs, taken per figure', () => {
    expect(figures.median([3, 1, 2])).toBe(2);
    expect(figures.median([4, 1, 3, 2])).toBe(2.5);
    expect(() => figures.median([])).toThrow();
    const cell = figures.cell([
      { floor: 1000, binding: 700, floorCpuMs: 0.5, bindingCpuMs: 1.4 },
      { floor: 900, binding: 950, floorCpuMs: 0.6, bindingCpuMs: 1.1 },
      { floor: 1100, binding: 800, floorCpuMs: 0.4, bindingCpuMs: 1.2 },
    ]);
    // Medians per figure, not the figures of a median run; the ratio is of the medians.
    expect(cell).toMatchObject({ floor: 1000, binding: 800, floorCpuMs: 0.5, bindingCpuMs: 1.2 });
    expect(cell.ratio).toBeCloseTo(0.8, 12);
  });

  it('P3 the keep-alive http.Agent floor is a second floor, its ratio of its own median', () => {
    const round = (floor: number, agentFloor: number, binding: number) => ({
      floor,
      agentFloor,
      binding,
      floorCpuMs: 1.7,
      agentFloorCpuMs: 0.8,
      bindingCpuMs: 0.5,
    });
    const cell = figures.cell([
      round(1000, 2500, 900),
      round(900, 2300, 800),
      round(1100, 2700, 700),
    ]);
    expect(cell).toMatchObject({
      floor: 1000,
      agentFloor: 2500,
      binding: 800,
      agentFloorCpuMs: 0.8,
    });
    expect(cell.ratio).toBeCloseTo(0.8, 12);
    expect(cell.agentRatio).toBeCloseTo(0.32, 12);
    // Without the second floor the cell is as it always was.
    expect(
      figures.cell([{ floor: 1, binding: 1, floorCpuMs: 1, bindingCpuMs: 1 }]),
    ).not.toHaveProperty('agentFloor');
    const verdicts = figures.verdicts({
      '0:1': { floor: 1000, binding: 800, ratio: 0.8, agentRatio: 0.32 },
      '0:2': { floor: 1000, binding: 900, ratio: 0.9, agentRatio: 0.4 },
      '50:1': { floor: 300, binding: 290, ratio: 290 / 300, agentRatio: 0.9 },
      '50:2': { floor: 600, binding: 580, ratio: 580 / 600, agentRatio: 0.95 },
    });
    expect(verdicts.worstRatio).toBeCloseTo(0.8, 12);
    expect(verdicts.worstAgentRatio).toBeCloseTo(0.32, 12);
  });

  it('P3 CPU ms per output sums the processes that did the work', () => {
    expect(figures.cpuMsPerOutput([100, 200], [400, 300], 100)).toBe(4);
    expect(figures.rate(500, 250)).toBe(2000);
    // utime 150 ticks + stime 50 ticks at 100 Hz = 2 s; a command name with spaces and ')'.
    const stat =
      '4242 (node main) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 150 50 0 0 20 0 11 0 5000';
    expect(figures.cpuMsFromProcStat(stat)).toBe(2000);
  });

  it('P3 database CPU ms per output sums the backends serving the process, a new one from 0', () => {
    const before = new Map([
      [10, 1_000],
      [11, 500],
    ]);
    // Backend 11 spent 300 ms, 12 opened meanwhile and spent 200 ms, 10 did nothing.
    const after = new Map([
      [10, 1_000],
      [11, 800],
      [12, 200],
    ]);
    expect(figures.backendCpuMsPerOutput(before, after, 100)).toBe(5);
    expect(figures.backendCpuMsPerOutput(before, after, 0)).toBeNaN();
  });

  it('P4 scaling compares the binding’s replica gain with the floor’s in-flight gain', () => {
    const s = figures.scaling({ floor: 500, binding: 400 }, { floor: 900, binding: 680 });
    expect(s.bindingGain).toBeCloseTo(1.7, 12);
    expect(s.floorGain).toBeCloseTo(1.8, 12);
    expect(s.gainVsFloor).toBeCloseTo(1.7 / 1.8, 12);
  });

  it('P2 the verdicts hold the targets of the issue: ≥ 0.8× the floor, ≥ 0.9× its gain', () => {
    expect(figures.TARGETS).toEqual({ bindingVsFloor: 0.8, scalingVsFloor: 0.9 });
    const at = (floor: number, binding: number) => ({ floor, binding, ratio: binding / floor });
    const met = figures.verdicts({
      '0:1': at(1000, 850),
      '0:2': at(1800, 1600),
      '50:1': at(300, 290),
      '50:2': at(600, 560),
    });
    expect(met).toMatchObject({ bindingVsFloorMet: true, scalingMet: true });
    expect(met.worstRatio).toBeCloseTo(0.85, 12);
    const missed = figures.verdicts({
      '0:1': at(1000, 790),
      '0:2': at(1800, 1600),
      '50:1': at(300, 290),
      '50:2': at(600, 400),
    });
    expect(missed).toMatchObject({ bindingVsFloorMet: false, scalingMet: false });
  });
});
