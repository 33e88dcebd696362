import { useRouteError } from 'react-router';

/** The generic page for an unhandled route error (spec part 1 §2). Text kept exactly as the spec. */
export function ErrorPage() {
  const error = useRouteError();
  console.error(error);
  return (
    <div style={{ padding: 32, fontFamily: 'system-ui, sans-serif' }}>
      <h2>Unexpected Application Error!</h2>
    </div>
  );
}
