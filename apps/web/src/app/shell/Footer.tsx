export function Footer() {
  return <footer style={{ textAlign: 'center', padding: '24px 0', opacity: 0.7 }}>© 2025 BYTX</footer>;
}
