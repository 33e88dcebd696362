import type { ChainTxResponse } from '@bytx/contract';
import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, renderApp } from '../../../../test/renderApp';
import i18n from '../../../shared/i18n/index';
import { ChainTxPage, formatWei } from './ChainTxPage';

const HASH = `0x${'1'.repeat(64)}`;
const FROM = '0x2222222222222222222222222222222222222222';
const SALE = '0x00000000000000000000000000000000000000a2';

const tx: ChainTxResponse = {
  success: true,
  hash: HASH,
  from: FROM,
  to: SALE,
  to_contract: 'sale',
  status: 'success',
  block_number: 42,
  timestamp: Date.UTC(2030, 0, 1),
  confirmations: 20,
  value: '0',
  function: 'buyTokensWith',
  events: [
    {
      contract: 'sale',
      address: SALE,
      name: 'TokensPurchased',
      args: { buyer: FROM, stablecoin: SALE, paid: '10000000', tokens: '5000000000000000000000' },
    },
  ],
};

const render = (path: string, answer: () => Response = () => json(tx)) =>
  renderApp(<ChainTxPage />, {
    initialPath: path,
    routes: [{ path: '/chain/tx/:hash', element: <ChainTxPage /> }],
    responses: { [`/api/chain/tx/${HASH}`]: answer },
  });

describe('ChainTxPage', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('formats wei exactly', () => {
    expect(formatWei('0')).toBe('0 ETH');
    expect(formatWei('1500000000000000000')).toBe('1.5 ETH');
    expect(formatWei('1')).toBe('0.000000000000000001 ETH');
  });

  it("shows the local chain's view of a transaction with its decoded events", async () => {
    render(`/chain/tx/${HASH}`);
    expect((await screen.findByTestId('chain-tx-status')).textContent).toBe('Success');
    expect(screen.getByTestId('chain-tx-hash').textContent).toBe(HASH);
    expect(screen.getByTestId('chain-tx-block').textContent).toBe('42');
    expect(screen.getByTestId('chain-tx-confirmations').textContent).toBe('20');
    expect(screen.getByTestId('chain-tx-from').textContent).toBe(FROM);
    expect(screen.getByTestId('chain-tx-to').textContent).toContain('sale');
    expect(screen.getByTestId('chain-tx-function').textContent).toBe('buyTokensWith');
    expect(screen.getByTestId('chain-tx-value').textContent).toBe('0 ETH');
    const event = screen.getByTestId('chain-tx-event');
    expect(event.getAttribute('data-name')).toBe('TokensPurchased');
    expect(event.textContent).toContain('tokens: 5000000000000000000000');
  });

  it("refuses a malformed hash without asking, and shows the server's refusal", async () => {
    const { requestedPaths } = render('/chain/tx/0x123');
    expect((await screen.findByTestId('chain-tx-error')).textContent).toBe(
      'Invalid transaction hash: 0x and 64 hex digits.',
    );
    expect(requestedPaths().filter((p) => p.startsWith('/api/chain/tx'))).toEqual([]);
  });

  it('shows the server message for an unknown transaction', async () => {
    render(`/chain/tx/${HASH}`, () =>
      json({ success: false, error: 'Transaction not found on this chain.' }, 404),
    );
    expect((await screen.findByTestId('chain-tx-error')).textContent).toBe(
      'Transaction not found on this chain.',
    );
  });
});
