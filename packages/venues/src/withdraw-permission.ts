/**
 * How each exchange tells whether an API key can withdraw (issue 37 point 12; docs/exchanges.md
 * "Withdrawal check"). The platform refuses keys that can withdraw wherever the exchange shows it.
 * One rule per ccxt id: the ccxt implicit method that asks, and how its answer names a withdrawal right.
 * Each rule was checked against the exchange's API documentation (the URL above it) and is tested with the
 * documented payload at the HTTP boundary (apps/server/test/exchanges-withdraw-check.test.ts).
 *
 * An exchange not in this table does not show a key's rights (or shows them in a form we have not checked
 * against its documentation): the connect answer says so and the user is asked for a trade-only key.
 */
export interface WithdrawPermissionRule {
  /** ccxt's implicit method for the endpoint (called with no arguments). */
  method: string;
  /** The endpoint, for logs and docs. */
  endpoint: string;
  /** Whether the endpoint answers on the exchange's sandbox (testnet) too. */
  sandbox: boolean;
  /** true: the key can withdraw; false: it cannot; null: the answer does not say (treated as not checked). */
  canWithdraw: (response: unknown) => boolean | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

export const WITHDRAW_PERMISSION_RULES: Readonly<Record<string, WithdrawPermissionRule>> = {
  // https://developers.binance.com/docs/wallet/account/api-key-permission
  // {"enableWithdrawals": false, "enableReading": true, ...}; not served by the spot testnet.
  binance: {
    method: 'sapiGetAccountApiRestrictions',
    endpoint: 'GET /sapi/v1/account/apiRestrictions',
    sandbox: false,
    canWithdraw: (r) => {
      if (!isRecord(r) || !('enableWithdrawals' in r)) return null;
      return r.enableWithdrawals === true || r.enableWithdrawals === 'true';
    },
  },
  // https://bybit-exchange.github.io/docs/v5/user/apikey-info
  // {"result": {"readOnly": 0, "permissions": {"Wallet": ["AccountTransfer", "Withdraw"], ...}}}: "Withdraw" in
  // permissions.Wallet (master accounts). Any key may call it; the testnet serves it too.
  bybit: {
    method: 'privateGetV5UserQueryApi',
    endpoint: 'GET /v5/user/query-api',
    sandbox: true,
    canWithdraw: (r) => {
      const result = isRecord(r) ? r.result : undefined;
      const permissions = isRecord(result) ? result.permissions : undefined;
      if (!isRecord(permissions)) return null;
      const wallet = permissions.Wallet;
      if (wallet === undefined) return false;
      if (!Array.isArray(wallet)) return null;
      return wallet.some((p) => String(p).toLowerCase() === 'withdraw');
    },
  },
  // https://www.okx.com/docs-v5/en/#trading-account-rest-api-get-account-configuration
  // {"data": [{"perm": "read_only,trade", ...}]}: "perm" lists the key's rights, comma-separated
  // (read_only, trade, withdraw).
  okx: {
    method: 'privateGetAccountConfig',
    endpoint: 'GET /api/v5/account/config',
    sandbox: true,
    canWithdraw: (r) => {
      const data = isRecord(r) && Array.isArray(r.data) ? (r.data[0] as unknown) : undefined;
      if (!isRecord(data) || typeof data.perm !== 'string') return null;
      return data.perm
        .split(',')
        .map((p) => p.trim().toLowerCase())
        .includes('withdraw');
    },
  },
  // https://docs.bitfinex.com/reference/key-permissions
  // [["account", 1, 0], ..., ["withdraw", 0, 0], ["ui_withdraw", 0, 0]]: [scope, read, write]; write on
  // "withdraw" (or "ui_withdraw") is a withdrawal right.
  bitfinex: {
    method: 'privatePostAuthRPermissions',
    endpoint: 'POST /v2/auth/r/permissions',
    sandbox: true,
    canWithdraw: (r) => {
      if (!Array.isArray(r)) return null;
      const rows = r.filter((row): row is unknown[] => Array.isArray(row));
      if (rows.length === 0) return null;
      return rows.some(
        (row) => (row[0] === 'withdraw' || row[0] === 'ui_withdraw') && (row[2] === 1 || row[2] === true),
      );
    },
  },
  // https://www.kucoin.com/docs/rest/account/basic-info/get-api-key-info (GET /api/v1/user/api-key)
  // {"code": "200000", "data": {"apiKey": "…", "apiVersion": 3, "permission": "General,Spot", "isMaster": true, …}}:
  // "permission" lists the key's rights, comma-separated; the withdrawal right appears as "Withdrawal"
  // (SDK examples also show "Withdraw"), so any name starting with "withdraw" counts.
  kucoin: {
    method: 'privateGetUserApiKey',
    endpoint: 'GET /api/v1/user/api-key',
    sandbox: false,
    canWithdraw: (r) => {
      const data = isRecord(r) ? r.data : undefined;
      if (!isRecord(data) || typeof data.permission !== 'string') return null;
      return data.permission.split(',').some((p) => p.trim().toLowerCase().startsWith('withdraw'));
    },
  },
  // BingX "Query API Key Permissions", GET /openApi/v1/account/apiPermissions
  // (https://bingx-api.github.io/docs/#/en-us/common/account-api): {"code": 0, "data": {"permissions": [1, 2, 3]}},
  // where 1 spot trading, 2 read, 3 perpetual futures trading, 4 universal transfer, 5 withdraw,
  // 7 sub-account transfer (the same codes in the bingex client's decoder and in other bots' recorded answers).
  bingx: {
    method: 'accountV1PrivateGetAccountApiPermissions',
    endpoint: 'GET /openApi/v1/account/apiPermissions',
    sandbox: false,
    canWithdraw: (r) => {
      const data = isRecord(r) ? r.data : undefined;
      const permissions = isRecord(data) ? data.permissions : undefined;
      if (!Array.isArray(permissions)) return null;
      return permissions.some((p) => {
        const v = String(p).trim().toLowerCase();
        return v === '5' || v === 'withdraw';
      });
    },
  },
};

/** The rule for a ccxt id on live or sandbox endpoints; undefined where the key's rights cannot be checked. */
export function withdrawPermissionRule(ccxtId: string, sandbox: boolean): WithdrawPermissionRule | undefined {
  const rule = WITHDRAW_PERMISSION_RULES[ccxtId];
  return rule && (!sandbox || rule.sandbox) ? rule : undefined;
}
