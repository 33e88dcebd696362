import { describe, expect, it } from 'vitest';
import { backtestStartBody, BACKTEST_KINDS, historialQuery, KIND_IDS, kindIdOf } from '../src/index';

describe('kind ids (issue 39)', () => {
  it('reads the ids before issue 39 as the new ones, and leaves every other value alone', () => {
    expect(kindIdOf('dca')).toBe('grid-dca');
    expect(kindIdOf('grid_dca')).toBe('grid-dca');
    expect(kindIdOf('classic_dca')).toBe('classic-dca');
    expect(kindIdOf('classic_vnc')).toBe('classic-vnc');
    for (const id of Object.values(KIND_IDS)) expect(kindIdOf(id)).toBe(id);
    expect(kindIdOf('constructor')).toBe('constructor');
  });

  it('GET /api/historial: the new ids, the old ones as aliases, the Grid Bot DCA by default', () => {
    expect(historialQuery.parse({}).kind).toBe('grid-dca');
    expect(historialQuery.parse({ kind: 'grid-dca' }).kind).toBe('grid-dca');
    expect(historialQuery.parse({ kind: 'classic-dca' }).kind).toBe('classic-dca');
    expect(historialQuery.parse({ kind: 'dca' }).kind).toBe('grid-dca');
    expect(historialQuery.parse({ kind: 'classic_dca' }).kind).toBe('classic-dca');
    expect(historialQuery.safeParse({ kind: 'grid' }).success).toBe(false);
  });

  it('POST /api/backtest: the backtest kinds by their ids, the old ones as aliases', () => {
    expect(BACKTEST_KINDS).toEqual([KIND_IDS.gridDca, KIND_IDS.classicDca, KIND_IDS.grid]);
    const kindOf = (kind: string) => backtestStartBody.parse({ kind, params: {} }).kind;
    expect(kindOf('grid-dca')).toBe('grid-dca');
    expect(kindOf('grid_dca')).toBe('grid-dca');
    expect(kindOf('classic_dca')).toBe('classic-dca');
    expect(kindOf('grid')).toBe('grid');
    const bad = backtestStartBody.safeParse({ kind: 'dca', params: {} });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('kind must be grid-dca, classic-dca or grid');
  });
});
