import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useLocation } from 'react-router';

/** The generic page for an unhandled render error (spec part 1 §2). Text kept exactly as the spec. */
export function ErrorPage() {
  return (
    <div style={{ padding: 32, fontFamily: 'system-ui, sans-serif' }}>
      <h1>Unexpected Application Error!</h1>
    </div>
  );
}

/**
 * What the data router's `errorElement` did, for the declarative router (app/router.tsx says why it is
 * declarative): any error thrown while rendering a route, a failed page chunk included, shows the page,
 * and a navigation to another path clears it (the shell then renders again).
 */
export function RouteErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return <ErrorBoundary path={pathname}>{children}</ErrorBoundary>;
}

class ErrorBoundary extends Component<{ path: string; children: ReactNode }, { failedAt: string | null }> {
  override state: { failedAt: string | null } = { failedAt: null };

  static getDerivedStateFromError() {
    return { failedAt: '' };
  }

  // The path the error happened on: the error page stays there, and goes on any other path.
  static getDerivedStateFromProps(
    props: { path: string },
    state: { failedAt: string | null },
  ): { failedAt: string | null } | null {
    if (state.failedAt === '') return { failedAt: props.path };
    if (state.failedAt !== null && state.failedAt !== props.path) return { failedAt: null };
    return null;
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    return this.state.failedAt !== null ? <ErrorPage /> : this.props.children;
  }
}
