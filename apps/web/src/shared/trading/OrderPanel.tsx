import { SPOT } from '@bytx/contract';
import {
  Alert,
  Button,
  Checkbox,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { tradingApi, type OrderRequest, type SpotMarketResponse, type SpotOrderPreview } from './api';
import { ConfirmOrderDialog } from './ConfirmOrderDialog';
import { useTradeNumbers } from './format';
import {
  checkOrder,
  ruleText,
  serverText,
  withPercent,
  withPrice,
  withQuantity,
  withValue,
  type MarketFacts,
  type OrderDraft,
  type OrderSide,
  type OrderTypeName,
  type TradeMarket,
} from './orderRules';

/** The toast after an order (spec part 1 §9: 3 to 3.5 s). */
export const ORDER_TOAST_MS = 3_000;
export const PERCENTS = [25, 50, 75, 100] as const;

/** GET /api/spot/market as the rules read it. */
export function factsOf(m: SpotMarketResponse, symbol: string): MarketFacts {
  return {
    exchange: m.exchange,
    symbol,
    base: m.base,
    quote: m.quote,
    listed: m.listed,
    amountStep: m.amount_step,
    priceStep: m.price_step,
    minAmount: m.min_amount,
    minCost: m.min_cost,
    price: m.price,
    baseFree: m.base_free,
    quoteFree: m.quote_free,
  };
}

interface Problem {
  text: string;
  reason?: string;
}

/**
 * The order panel (spec part 1 §2, §5): Buy / Sell (Long / Short on futures), Limit / Market, price,
 * quantity, value (digits and one dot; from 6 up it sets the quantity), 25/50/75/100 % of the balance,
 * TP and SL, Reduce-only on futures. The button runs the rules, then a dry_run of POST /api/spot/order,
 * then the confirmation dialog; Confirm places the previewed order and shows the toast (3 s).
 * Test ids `trade-order-panel` (data-market), `trade-side-{buy,sell}`, `trade-type-{limit,market}`,
 * `trade-order-{price,quantity,value,tp,sl,reduce-only,submit,error,reason}`, `trade-pct-{25,50,75,100}`,
 * `trade-available`, `trade-market-price`, `trade-leverage`, `trade-market-loading`, `trade-toast`.
 */
export function OrderPanel({
  market,
  exchange,
  connected,
  symbol,
  base,
  quote,
  info,
  infoError,
  leverage,
  draft,
  onDraft,
  onPlaced,
}: {
  market: TradeMarket;
  exchange: string;
  connected: boolean;
  symbol: string;
  base: string;
  quote: string;
  info: SpotMarketResponse | undefined;
  infoError: unknown;
  leverage: number;
  draft: OrderDraft;
  onDraft: (d: OrderDraft) => void;
  onPlaced: () => void;
}) {
  const { t } = useTranslation();
  const { fmtPrice, fmtQty, fmtValue } = useTradeNumbers();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [checking, setChecking] = useState(false);
  const [placing, setPlacing] = useState(false);
  const [preview, setPreview] = useState<SpotOrderPreview | null>(null);
  const facts = info ? factsOf(info, symbol) : null;
  const marketPrice = facts?.price ?? null;
  const ctx = { market, exchange, connected, facts, leverage };
  const side = (s: OrderSide) => t(`trading.sides.${market}.${s}`);

  const edit = (d: OrderDraft) => {
    setProblem(null);
    onDraft(d);
  };

  const fromServer = (err: unknown): Problem => {
    const body = err instanceof ApiError ? (err.body as { reason?: unknown } | undefined) : undefined;
    const reason = typeof body?.reason === 'string' ? body.reason : undefined;
    const text = err instanceof ApiError ? serverText(t, err.message) : t('trading.messages.tradeError');
    return reason ? { text, reason } : { text };
  };

  /** The call's body: the rules' rounded order for the dry_run, the preview itself for Confirm. */
  const request = (
    o: Pick<SpotOrderPreview, 'side' | 'type' | 'price' | 'quantity' | 'tp' | 'sl'>,
    dryRun: boolean,
  ): OrderRequest => ({
    exchange,
    symbol,
    side: o.side,
    type: o.type,
    ...(o.type === 'limit' ? { price: o.price } : {}),
    quantity: o.quantity,
    tp: o.tp,
    sl: o.sl,
    ...(market === 'swap' ? { reduce_only: draft.reduceOnly } : {}),
    ...(dryRun ? { dry_run: true } : {}),
  });

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (checking || placing || preview) return;
    const checked = checkOrder(draft, ctx);
    if (!checked.ok) {
      setProblem({ text: ruleText(t, checked.failure) });
      return;
    }
    setProblem(null);
    setChecking(true);
    try {
      const r = await tradingApi.order(request(checked.order, true));
      if (!r.preview) throw new Error(r.message);
      setPreview(r.preview);
    } catch (err) {
      setProblem(fromServer(err));
    } finally {
      setChecking(false);
    }
  };

  const confirm = async () => {
    if (!preview || placing) return;
    setPlacing(true);
    try {
      const r = await tradingApi.order(request(preview, false));
      setPreview(null);
      notifications.show({
        color: 'teal',
        message: serverText(t, r.message, side),
        autoClose: ORDER_TOAST_MS,
        'data-testid': 'trade-toast',
      });
      onDraft({ ...draft, quantity: '', value: '' });
    } catch (err) {
      setPreview(null);
      const p = fromServer(err);
      setProblem(p);
      notifications.show({
        color: 'red',
        message: p.reason ? `${p.text} ${p.reason}` : p.text,
        autoClose: ORDER_TOAST_MS,
        'data-testid': 'trade-toast',
      });
    } finally {
      setPlacing(false);
      onPlaced();
    }
  };

  const available =
    market === 'spot' && draft.side === 'sell'
      ? `${fmtQty(facts?.baseFree)} ${base}`
      : `${fmtValue(facts?.quoteFree)} ${quote}`;
  const buyColor = draft.side === 'buy' ? 'teal' : 'red';

  return (
    <Paper withBorder p="sm" data-testid="trade-order-panel" data-market={market}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="xs">
          <SimpleGrid cols={2} spacing={4} role="group" aria-label={t('trading.order.side')}>
            {(['buy', 'sell'] as const).map((s) => (
              <Button
                key={s}
                color={s === 'buy' ? 'teal' : 'red'}
                variant={draft.side === s ? 'filled' : 'default'}
                aria-pressed={draft.side === s}
                onClick={() => edit({ ...draft, side: s })}
                data-testid={`trade-side-${s}`}
              >
                {side(s)}
              </Button>
            ))}
          </SimpleGrid>
          <SimpleGrid cols={2} spacing={4} role="group" aria-label={t('trading.order.type')}>
            {(['Limit', 'Market'] as const satisfies readonly OrderTypeName[]).map((ty) => (
              <Button
                key={ty}
                size="compact-sm"
                variant={draft.type === ty ? 'light' : 'subtle'}
                aria-pressed={draft.type === ty}
                onClick={() => edit({ ...draft, type: ty })}
                data-testid={`trade-type-${ty.toLowerCase()}`}
              >
                {t(ty === 'Limit' ? 'trading.order.limit' : 'trading.order.market')}
              </Button>
            ))}
          </SimpleGrid>

          {!info && !infoError ? (
            <Skeleton h={18} data-testid="trade-market-loading" />
          ) : (
            <Group justify="space-between" gap={4}>
              <Text size="xs" c="dimmed">
                {t('trading.order.available')}
              </Text>
              <Text size="xs" ff="monospace" data-testid="trade-available">
                {available}
              </Text>
            </Group>
          )}
          {market === 'swap' && (
            <Group justify="space-between" gap={4}>
              <Text size="xs" c="dimmed">
                {t('trading.order.leverage')}
              </Text>
              <Text size="xs" ff="monospace" data-testid="trade-leverage">
                {`${leverage}x`}
              </Text>
            </Group>
          )}

          {draft.type === 'Limit' ? (
            <TextInput
              size="sm"
              label={t('trading.order.price', { quote })}
              inputMode="decimal"
              autoComplete="off"
              value={draft.price}
              onChange={(e) => edit(withPrice(draft, e.currentTarget.value, marketPrice))}
              data-testid="trade-order-price"
            />
          ) : (
            <TextInput
              size="sm"
              label={t('trading.order.price', { quote })}
              value={t('trading.order.marketPrice', {
                price: fmtPrice(marketPrice, facts?.priceStep),
              })}
              readOnly
              disabled
              data-testid="trade-market-price"
            />
          )}
          <TextInput
            size="sm"
            label={t('trading.order.quantity', { base })}
            inputMode="decimal"
            autoComplete="off"
            value={draft.quantity}
            onChange={(e) => edit(withQuantity(draft, e.currentTarget.value, marketPrice))}
            data-testid="trade-order-quantity"
          />
          <TextInput
            size="sm"
            label={t('trading.order.value', { quote })}
            description={
              market === 'spot' ? t('trading.order.valueHint', { min: SPOT.minValue, quote }) : undefined
            }
            inputMode="decimal"
            autoComplete="off"
            value={draft.value}
            onChange={(e) => edit(withValue(draft, e.currentTarget.value, marketPrice))}
            data-testid="trade-order-value"
          />
          <SimpleGrid cols={4} spacing={4} role="group" aria-label={t('trading.order.size')}>
            {PERCENTS.map((p) => (
              <Button
                key={p}
                size="compact-xs"
                variant="default"
                onClick={() => edit(withPercent(draft, p, ctx))}
                disabled={!facts}
                data-testid={`trade-pct-${p}`}
              >
                {p}%
              </Button>
            ))}
          </SimpleGrid>
          <SimpleGrid cols={2} spacing={6}>
            <TextInput
              size="sm"
              label={t('trading.order.tp')}
              placeholder={t('trading.order.optional')}
              inputMode="decimal"
              autoComplete="off"
              value={draft.tp}
              onChange={(e) => edit({ ...draft, tp: e.currentTarget.value })}
              data-testid="trade-order-tp"
            />
            <TextInput
              size="sm"
              label={t('trading.order.sl')}
              placeholder={t('trading.order.optional')}
              inputMode="decimal"
              autoComplete="off"
              value={draft.sl}
              onChange={(e) => edit({ ...draft, sl: e.currentTarget.value })}
              data-testid="trade-order-sl"
            />
          </SimpleGrid>
          {market === 'swap' && (
            <Checkbox
              label={t('trading.order.reduceOnly')}
              checked={draft.reduceOnly}
              onChange={(e) => edit({ ...draft, reduceOnly: e.currentTarget.checked })}
              data-testid="trade-order-reduce-only"
            />
          )}
          {problem && (
            <Alert color="red" p="xs" role="alert">
              <Text size="sm" data-testid="trade-order-error">
                {problem.text}
              </Text>
              {problem.reason && (
                <Text size="xs" c="dimmed" data-testid="trade-order-reason">
                  {problem.reason}
                </Text>
              )}
            </Alert>
          )}
          <Button
            type="submit"
            color={buyColor}
            loading={checking}
            fullWidth
            data-testid="trade-order-submit"
          >
            {t('trading.order.submit', { side: side(draft.side), base })}
          </Button>
        </Stack>
      </form>
      <ConfirmOrderDialog
        market={market}
        preview={preview}
        reduceOnly={market === 'swap' && draft.reduceOnly}
        priceStep={facts?.priceStep}
        busy={placing}
        onConfirm={() => void confirm()}
        onCancel={() => {
          if (!placing) setPreview(null);
        }}
      />
    </Paper>
  );
}
