import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Link, MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RouteErrorBoundary } from './ErrorPage';

const Broken = () => {
  throw new Error('boom');
};

describe('RouteErrorBoundary', () => {
  beforeEach(() => {
    // React and the boundary report the error on the console; the test reads the page instead.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  it("shows the spec's error page when a route throws, and the next path's page after a navigation", async () => {
    const user = userEvent.setup();
    render(
      <MemoryRouter initialEntries={['/broken']}>
        <Link to="/fine">elsewhere</Link>
        <RouteErrorBoundary>
          <Routes>
            <Route path="/broken" element={<Broken />} />
            <Route path="/fine" element={<p>fine page</p>} />
          </Routes>
        </RouteErrorBoundary>
      </MemoryRouter>,
    );
    expect(screen.getByText('Unexpected Application Error!')).toBeTruthy();
    await user.click(screen.getByText('elsewhere'));
    expect(await screen.findByText('fine page')).toBeTruthy();
    expect(screen.queryByText('Unexpected Application Error!')).toBeNull();
  });
});
