/**
 * The id of each bot kind, the same everywhere (issue 39): the engine strategy's `kind`, the server's
 * and the web app's folder, the backtest kind and the database value `bots.kind`. The spec's URLs and
 * field names do not carry these ids and stay as they are.
 */
export const KIND_IDS = {
  gridDca: 'grid-dca',
  classicDca: 'classic-dca',
  classicVnc: 'classic-vnc',
  grid: 'grid',
  arbitrage: 'arbitrage',
  signal: 'signal',
  manual: 'manual',
} as const;
export type KindId = (typeof KIND_IDS)[keyof typeof KIND_IDS];

/**
 * The ids used before issue 39, which clients may still send (GET /api/historial `kind`, the backtest
 * `kind`): each is read as its kind's id. Stored rows were renamed by migration 0890_kind_ids.sql.
 */
export const LEGACY_KIND_IDS = {
  dca: 'grid-dca',
  grid_dca: 'grid-dca',
  classic_dca: 'classic-dca',
  classic_vnc: 'classic-vnc',
} as const satisfies Record<string, KindId>;
export type LegacyKindId = keyof typeof LEGACY_KIND_IDS;

/** The kind id of `value`: an old id (LEGACY_KIND_IDS) as its new one, anything else unchanged. */
export function kindIdOf<T extends string>(
  value: T,
): Exclude<T, LegacyKindId> | (typeof LEGACY_KIND_IDS)[T & LegacyKindId] {
  return (Object.hasOwn(LEGACY_KIND_IDS, value) ? LEGACY_KIND_IDS[value as LegacyKindId] : value) as never;
}
