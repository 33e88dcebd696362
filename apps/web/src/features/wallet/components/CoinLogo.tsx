/** A simple generated logo: the coin's letters on a colour derived from its symbol. */
export function CoinLogo({ symbol, size = 32 }: { symbol: string; size?: number }) {
  let h = 0;
  for (const ch of symbol) h = (h * 31 + ch.charCodeAt(0)) % 360;
  const label = symbol.slice(0, symbol.length > 4 ? 3 : 4);
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 32 32"
      role="img"
      aria-label={`${symbol} logo`}
      data-testid={`coin-logo-${symbol}`}
    >
      <circle cx="16" cy="16" r="15" fill={`hsl(${h} 65% 45%)`} />
      <text
        x="16"
        y="16"
        dy="0.35em"
        textAnchor="middle"
        fontSize={label.length > 3 ? 8 : 10}
        fontWeight="700"
        fill="#fff"
        fontFamily="sans-serif"
      >
        {label}
      </text>
    </svg>
  );
}
