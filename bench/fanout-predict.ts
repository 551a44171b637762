// bench/fanout-predict: which reading of an agent's remembered fan-out predicts its next run best.
// A model of the pool, not a run: each fresh-process run of a shape (its replies' delegation blocks,
// turn by turn) is played after the runs before it, and a request at turn t keeps
// max(t = 0 ? prestartThreads : the last reply's blocks, predicted) threads; threads not started by
// the reply's end are "late" (they start after it, on the critical path), every thread started
// counts toward "started" (CPU and memory). Between turns the pool keeps the threads it has (short
// turns) or, where a turn outlasts the idle timeout (a real model with tool work), keeps only the
// threads of the children that just ended.
// Run: npx tsx bench/fanout-predict.ts
import { widestStillToCome } from '../src/host/agents/fanout-memory.js';
import { RUNS_KEPT } from '../src/host/agents/fanout-file.js';
import { writeResult } from './support/stats.js';

const AHEAD = 2;
type Runs = readonly (readonly number[])[];
type Predictor = (runs: Runs, turn: number) => number;

const PREDICTORS: Record<string, Predictor> = {
  'none (prestartThreads only)': () => 0,
  'widest of any turn': (runs) => Math.max(0, ...runs.flat()),
  'widest at that turn': (runs, turn) => Math.max(0, ...runs.map((r) => r[turn] ?? 0)),
  'widest still to come (shipped)': widestStillToCome,
};

const repeat = (run: number[], times: number) => Array.from({ length: times }, () => run);
const SHAPES: Record<string, number[][]> = {
  'fans out 16 at once (the benchmark)': repeat([16, 0], 6),
  'reads, then fans out 8': repeat([0, 8, 0], 6),
  'fan-out turn shifts': [0, 1, 2].flatMap(() => [
    [8, 0],
    [0, 8, 0],
  ]),
  'fan-out moves a turn earlier': [[0, 8, 0], ...repeat([8, 0], 5)],
  'two fan-outs of 4': repeat([4, 4, 0], 6),
  'narrows from 16 to 1': [[16, 0], ...repeat([1, 0], 5)],
  'widens from 1 to 16': [[1, 0], ...repeat([16, 0], 5)],
};

/** Threads started and started late over every run of `shape` but the first. */
function play(shape: number[][], predict: Predictor, reaped: boolean) {
  let started = 0;
  let late = 0;
  for (let i = 1; i < shape.length; i++) {
    const history = shape.slice(Math.max(0, i - RUNS_KEPT), i);
    const run = shape[i]!;
    let pool = 0;
    for (let turn = 0; turn < run.length; turn++) {
      const want = Math.max(turn === 0 ? AHEAD : run[turn - 1]!, predict(history, turn));
      started += Math.max(0, want - pool);
      pool = Math.max(pool, want);
      const need = run[turn]!;
      late += Math.max(0, need - pool);
      started += Math.max(0, need - pool);
      pool = reaped ? need : Math.max(pool, need);
    }
  }
  return { started, late };
}

const rows = Object.entries(SHAPES).flatMap(([shape, runs]) =>
  Object.entries(PREDICTORS).map(([predictor, predict]) => {
    const short = play(runs, predict, false);
    const long = play(runs, predict, true);
    return {
      shape,
      predictor,
      'late (short turns)': short.late,
      'started (short turns)': short.started,
      'late (long turns)': long.late,
      'started (long turns)': long.started,
    };
  }),
);
console.log(`runs 2 to ${RUNS_KEPT + 1} of each shape, prestartThreads ${AHEAD}; fewer is better:`);
console.table(rows);
console.log(`written to ${await writeResult('fanout-predict', { ahead: AHEAD, shapes: SHAPES, rows })}`);
