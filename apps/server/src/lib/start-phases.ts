/**
 * Where a start's time goes (issue 45 point 5): each phase of the server's start marks its end here, in
 * ms since the process began (`performance.now()` counts from the process's time origin, so the first
 * mark includes Node's own start and the import of the server's code). `main.ts` logs them once at
 * info as "start phases", and `bench/restart.bench.ts` reads that line: per-phase times are far less
 * noisy than the total on a shared machine.
 *
 * Kept free of imports: `main.ts` loads it before the rest of the server.
 */
export interface StartPhase {
  /** What just finished. */
  phase: string;
  /** Process time at its end (ms). */
  at: number;
  /** Its own duration: from the previous mark of the same track (ms). */
  ms: number;
}

const MAX_MARKS = 64;
const marks: StartPhase[] = [];
/** The last mark per track: the database and the chain start side by side, each timed on its own. */
const lastOf = new Map<string, number>();

/** Marks the end of `phase` (in `track`, 'main' unless the phase runs beside the main line). */
export function markStart(phase: string, track = 'main'): void {
  // A test process builds hundreds of apps: only the first start's phases are of interest.
  if (marks.length >= MAX_MARKS) return;
  const at = performance.now();
  const from = lastOf.get(track) ?? lastOf.get('main') ?? 0;
  marks.push({ phase, at: round(at), ms: round(at - from) });
  lastOf.set(track, at);
}

/** The marks so far, in the order they were made. */
export function startPhases(): readonly StartPhase[] {
  return marks;
}

/** `{ phase: ms, ... }` and the process time of the last mark: the shape of the log line. */
export function startPhasesLine(): Record<string, number> {
  const line: Record<string, number> = {};
  for (const m of marks) line[m.phase] = m.ms;
  return line;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
