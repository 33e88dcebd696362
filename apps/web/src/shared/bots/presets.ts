/**
 * The start forms' presets (issue 40 pt 3): conservative, balanced, aggressive. Each fills the form
 * with its figures, shown beside its name. The figures stay inside the server's start checks
 * (apps/server/src/modules/bots/start-params.ts and each kind's params): TP and Separation at least
 * 0.5 % (the classic DCA's separation at most 50 %), # OS a whole number from 1 to 100, amounts well
 * above a usual exchange minimum of 5-10 USDT.
 */
export const PRESET_KEYS = ['conservative', 'balanced', 'aggressive'] as const;
export type PresetKey = (typeof PRESET_KEYS)[number];

/** The DCA forms' figures (both DCA kinds): amount in USDT per buy, TP and Separation in %, # OS. */
export interface DcaPreset {
  amount: string;
  tp: string;
  sep: string;
  os: string;
}

/**
 * Conservative: wide steps that reach about 10 % below the entry with 5 buys, and a larger take
 * profit. Balanced: the spec's defaults (20 USDT, TP 1 %, separation 1 %, 3 OS). Aggressive: more
 * capital on a tight ladder that trades small moves (TP 0.6 % still covers two 0.1 % fees).
 */
export const DCA_PRESETS: Record<PresetKey, DcaPreset> = {
  conservative: { amount: '20', tp: '1.5', sep: '2', os: '5' },
  balanced: { amount: '20', tp: '1', sep: '1', os: '3' },
  aggressive: { amount: '50', tp: '0.6', sep: '0.5', os: '8' },
};

/** Which preset the values are, if any (the picker marks it pressed). */
export function presetOf<T extends object>(presets: Record<PresetKey, T>, values: T): PresetKey | null {
  const same = (a: T) => (Object.keys(a) as (keyof T)[]).every((k) => String(a[k]) === String(values[k]));
  return PRESET_KEYS.find((k) => same(presets[k])) ?? null;
}
