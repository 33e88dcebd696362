import { useId, type CSSProperties, type MouseEvent, type ReactNode, type Ref } from 'react';
import { Link } from 'react-router';

/*
 * The first page's Mantine look without Mantine's code (docs/web-shell.md "First page size"): the shell
 * and the landing page are in the first script, and Mantine's runtime (its provider, theme, Box and
 * styles API, about 20 KB gzip) is not. These components render the very markup Mantine 9's components
 * render for the props the shell and landing use — the same class names, data attributes and CSS
 * variables — so Mantine's own stylesheets (app/styles/shell.ts) draw them exactly as before, and a
 * Mantine part that replaces one later (the header's deferred controls) looks the same.
 * `plain.test.tsx` renders each beside the Mantine component it stands for and compares the HTML: a
 * Mantine upgrade that changes its markup fails there.
 */

type Size = 'xs' | 'sm' | 'md' | 'lg' | 'xl';
/** Mantine's spacing: a theme size, or px (written as Mantine's rem). */
type Spacing = Size | number;
/** A theme color name, or `primary` (the theme's primary color, yellow: app/mantine.tsx). */
type Color = 'primary' | 'gray' | 'yellow' | 'blue' | 'red' | 'teal';
type Variant = 'filled' | 'light' | 'subtle' | 'default';

const PRIMARY = 'yellow';
const named = (c: Color) => (c === 'primary' ? PRIMARY : c);

/** Mantine's `rem()` of a px number, as its components write it. */
const rem = (px: number) => `calc(${px / 16}rem * var(--mantine-scale))`;
const spacing = (s: Spacing) => (typeof s === 'number' ? rem(s) : `var(--mantine-spacing-${s})`);

/** Mantine's variant colors resolver for the variants used here, as CSS variables with `prefix`. */
function variantVars(prefix: string, variant: Variant, color: Color): Record<string, string> {
  const c = named(color);
  const border = rem(1);
  switch (variant) {
    case 'filled':
      // The theme's autoContrast (shared/ui/theme.ts): black on the primary yellow, as Mantine's Button.
      return {
        [`--${prefix}-color`]: c === PRIMARY ? 'var(--mantine-color-black)' : 'var(--mantine-color-white)',
      };
    case 'light':
      return {
        [`--${prefix}-bg`]: `var(--mantine-color-${c}-light)`,
        [`--${prefix}-hover`]: `var(--mantine-color-${c}-light-hover)`,
        [`--${prefix}-color`]: `var(--mantine-color-${c}-light-color)`,
        [`--${prefix}-bd`]: `${border} solid transparent`,
      };
    case 'subtle':
      return {
        [`--${prefix}-bg`]: 'transparent',
        [`--${prefix}-hover`]: `var(--mantine-color-${c}-light-hover)`,
        [`--${prefix}-color`]: `var(--mantine-color-${c}-light-color)`,
        [`--${prefix}-bd`]: `${border} solid transparent`,
      };
    case 'default':
      return {
        [`--${prefix}-bg`]: 'var(--mantine-color-default)',
        [`--${prefix}-hover`]: 'var(--mantine-color-default-hover)',
        [`--${prefix}-color`]: 'var(--mantine-color-default-color)',
        [`--${prefix}-bd`]: `${border} solid var(--mantine-color-default-border)`,
      };
  }
}

const cx = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ');
/** Mantine's `visibleFrom` / `hiddenFrom` classes (app/styles/theme.css). */
const responsive = (visibleFrom?: Size, hiddenFrom?: Size) =>
  cx(visibleFrom && `mantine-visible-from-${visibleFrom}`, hiddenFrom && `mantine-hidden-from-${hiddenFrom}`);

const css = (vars: Record<string, string | number | undefined>) => vars as CSSProperties;

interface ClickableProps {
  /** A router link to this path; otherwise a `<button type="button">`. */
  to?: string;
  onClick?: (e: MouseEvent<HTMLElement>) => void;
  'data-testid'?: string;
  'aria-label'?: string;
  ref?: Ref<HTMLAnchorElement & HTMLButtonElement>;
}

function Clickable({
  to,
  style,
  className,
  dataAttrs,
  children,
  ...rest
}: ClickableProps & {
  style: CSSProperties;
  className: string;
  dataAttrs: Record<string, string | undefined>;
  children: ReactNode;
}) {
  // Mantine's order of attributes: style, class, data-*, then the caller's props.
  if (to !== undefined) {
    return (
      <Link style={style} className={className} {...dataAttrs} {...rest} to={to}>
        {children}
      </Link>
    );
  }
  return (
    <button style={style} className={className} {...dataAttrs} type="button" {...rest}>
      {children}
    </button>
  );
}

/** Mantine's `Button` (no sections, no loader). */
export function PlainButton({
  variant = 'filled',
  color = 'primary',
  size = 'sm',
  visibleFrom,
  children,
  ...rest
}: ClickableProps & {
  variant?: Variant;
  color?: Color;
  size?: 'compact-sm' | 'sm' | 'md';
  visibleFrom?: Size;
  children: ReactNode;
}) {
  const fz = size.replace('compact-', '');
  return (
    <Clickable
      {...rest}
      style={css({
        '--button-height': `var(--button-height-${size})`,
        '--button-padding-x': `var(--button-padding-x-${size})`,
        '--button-fz': `var(--mantine-font-size-${fz})`,
        ...variantVars('button', variant, color),
      })}
      className={cx(
        'mantine-focus-auto mantine-active m_77c9d27d mantine-Button-root m_87cf2631 mantine-UnstyledButton-root',
        responsive(visibleFrom),
      )}
      dataAttrs={{ 'data-variant': variant === 'filled' ? undefined : variant, 'data-size': size }}
    >
      <span className="m_80f1301b mantine-Button-inner">
        <span className="m_811560b9 mantine-Button-label">{children}</span>
      </span>
    </Clickable>
  );
}

/** Mantine's `ActionIcon` of the default size. */
export function PlainActionIcon({
  variant = 'filled',
  color = 'primary',
  children,
  ...rest
}: ClickableProps & { variant?: Variant; color?: Color; children: ReactNode }) {
  return (
    <Clickable
      {...rest}
      style={css(variantVars('ai', variant, color))}
      className="mantine-focus-auto mantine-active m_8d3f4000 mantine-ActionIcon-root m_87cf2631 mantine-UnstyledButton-root"
      dataAttrs={{ 'data-variant': variant }}
    >
      <span className="m_8d3afb97 mantine-ActionIcon-icon">{children}</span>
    </Clickable>
  );
}

/** Mantine's `Burger` (size sm). */
export function PlainBurger({
  opened,
  hiddenFrom,
  onClick,
  ...rest
}: {
  opened: boolean;
  hiddenFrom?: Size;
  onClick: () => void;
  'aria-label': string;
  'data-testid'?: string;
}) {
  return (
    <button
      style={css({ '--burger-size': 'var(--burger-size-sm)' })}
      className={cx(
        'mantine-focus-auto m_fea6bf1a mantine-Burger-root m_87cf2631 mantine-UnstyledButton-root',
        responsive(undefined, hiddenFrom),
      )}
      data-size="sm"
      type="button"
      onClick={onClick}
      {...rest}
    >
      <div
        className="m_d4fb9cad mantine-Burger-burger"
        data-opened={opened || undefined}
        data-reduce-motion="true"
      />
    </button>
  );
}

type Tag = 'div' | 'nav' | 'ul' | 'li' | 'p' | 'span' | 'footer';

/** Mantine's `Group`. */
export function PlainGroup({
  component: C = 'div',
  gap = 'md',
  justify = 'flex-start',
  wrap = 'wrap',
  visibleFrom,
  style,
  children,
  ...rest
}: {
  component?: Tag;
  gap?: Spacing;
  justify?: CSSProperties['justifyContent'];
  wrap?: 'wrap' | 'nowrap';
  visibleFrom?: Size;
  style?: CSSProperties;
  children: ReactNode;
  ref?: Ref<HTMLDivElement>;
  'data-testid'?: string;
  'aria-label'?: string;
  title?: string;
}) {
  return (
    <C
      style={{
        ...css({
          '--group-gap': spacing(gap),
          '--group-align': 'center',
          '--group-justify': justify,
          '--group-wrap': wrap,
        }),
        ...style,
      }}
      className={cx('m_4081bf90 mantine-Group-root', responsive(visibleFrom))}
      {...(rest as object)}
    >
      {children}
    </C>
  );
}

/** Mantine's `Stack`. */
export function PlainStack({
  gap = 'md',
  align = 'stretch',
  style,
  children,
  ...rest
}: {
  gap?: Spacing;
  align?: CSSProperties['alignItems'];
  style?: CSSProperties;
  children: ReactNode;
  'data-testid'?: string;
}) {
  return (
    <div
      style={{
        ...css({ '--stack-gap': spacing(gap), '--stack-align': align, '--stack-justify': 'flex-start' }),
        ...style,
      }}
      className="m_6d731127 mantine-Stack-root"
      {...rest}
    >
      {children}
    </div>
  );
}

const TEXT_COLOR: Record<string, string> = {
  dimmed: 'var(--mantine-color-dimmed)',
};
const textColor = (c: string) => TEXT_COLOR[c] ?? `var(--mantine-color-${c}-text)`;

/** Mantine's `Text`. `c`: a theme color (its `-text` shade) or `dimmed`. */
export function PlainText({
  component: C = 'p',
  size,
  c,
  fw,
  style,
  visibleFrom,
  children,
  ...rest
}: {
  component?: Tag;
  size?: Size;
  c?: string;
  fw?: number;
  style?: CSSProperties;
  visibleFrom?: Size;
  children: ReactNode;
  'data-testid'?: string;
  'data-direction'?: string;
}) {
  return (
    <C
      style={{
        ...css(
          size
            ? {
                '--text-fz': `var(--mantine-font-size-${size})`,
                '--text-lh': `var(--mantine-line-height-${size})`,
              }
            : {},
        ),
        ...(c ? { color: textColor(c) } : {}),
        ...(fw ? { fontWeight: fw } : {}),
        ...style,
      }}
      className={cx('mantine-focus-auto m_b6d8b162 mantine-Text-root', responsive(visibleFrom))}
      data-size={size}
      {...rest}
    >
      {children}
    </C>
  );
}

/** Mantine's `Title` (`order` 1-3, drawn at the size of heading `size`). */
export function PlainTitle({
  order,
  size = `h${order}`,
  style,
  children,
}: {
  order: 1 | 2 | 3;
  size?: 'h1' | 'h2' | 'h3' | 'h4';
  style?: CSSProperties;
  children: ReactNode;
}) {
  const H = `h${order}` as const;
  return (
    <H
      style={{
        ...css({
          '--title-fw': `var(--mantine-${size}-font-weight)`,
          '--title-lh': `var(--mantine-${size}-line-height)`,
          '--title-fz': `var(--mantine-${size}-font-size)`,
        }),
        ...style,
      }}
      className="m_8a5d1357 mantine-Title-root"
      data-size={size === `h${order}` ? undefined : size}
      data-order={order}
    >
      {children}
    </H>
  );
}

/** Mantine's `Container` (size lg, vertical padding xl). */
export function PlainContainer({ children }: { children: ReactNode }) {
  return (
    <div
      style={css({
        '--container-size': 'var(--container-size-lg)',
        paddingBlock: 'var(--mantine-spacing-xl)',
      })}
      className="m_7485cace mantine-Container-root"
      data-size="lg"
      data-strategy="block"
    >
      {children}
    </div>
  );
}

/** Mantine's `Alert`, variant light, with a title. */
export function PlainAlert({
  color,
  title,
  children,
  ...rest
}: {
  color: Color;
  title: ReactNode;
  children: ReactNode;
  'data-testid'?: string;
}) {
  const id = `mantine-${useId()}`;
  const c = named(color);
  return (
    <div
      style={css({
        '--alert-bg': `var(--mantine-color-${c}-light)`,
        '--alert-color': `var(--mantine-color-${c}-light-color)`,
        '--alert-bd': `${rem(1)} solid transparent`,
      })}
      className="m_66836ed3 mantine-Alert-root"
      data-variant="light"
      id={id}
      {...rest}
      role="alert"
      aria-describedby={`${id}-body`}
      aria-labelledby={`${id}-title`}
    >
      <div className="m_a5d60502 mantine-Alert-wrapper">
        <div className="m_667c2793 mantine-Alert-body">
          <div className="m_6a03f287 mantine-Alert-title">
            <span id={`${id}-title`} className="m_698f4f23 mantine-Alert-label">
              {title}
            </span>
          </div>
          <div id={`${id}-body`} className="m_7fa78076 mantine-Alert-message" data-variant="light">
            {children}
          </div>
        </div>
      </div>
    </div>
  );
}

/**
 * Mantine's `SimpleGrid` with `cols={{ base: 1, sm: 2 }}` and spacing lg. Mantine writes its responsive
 * columns into a `<style>` of a generated class; here the class is `bytx-grid-1-2` (app/styles/theme.css).
 */
export function PlainGrid12({ children }: { children: ReactNode }) {
  return <div className="m_2415a157 mantine-SimpleGrid-root bytx-grid-1-2">{children}</div>;
}

/** Mantine's `Card` with a border and padding lg. */
export function PlainCard({ children, ...rest }: { children: ReactNode; 'data-testid'?: string }) {
  return (
    <div
      style={css({ '--card-padding': 'var(--mantine-spacing-lg)' })}
      className="m_e615b15f mantine-Card-root m_1b7284a3 mantine-Paper-root"
      data-with-border="true"
      data-orientation="vertical"
      {...rest}
    >
      {children}
    </div>
  );
}

/**
 * Mantine's `SegmentedControl` (size xs) as it renders before its moving indicator is measured: the
 * active label carries the indicator's background itself (Mantine's CSS for an uninitialized control).
 * Two radio inputs: arrows and clicks choose as in Mantine's.
 */
export function PlainSegmented<V extends string>({
  value,
  onChange,
  data,
  ...rest
}: {
  value: V;
  onChange: (value: V) => void;
  data: { value: V; label: string }[];
  'aria-label': string;
  'data-testid'?: string;
}) {
  const name = `mantine-${useId()}`;
  return (
    <div
      style={css({
        '--sc-shadow': 'var(--mantine-shadow-xs)',
        '--sc-padding': 'var(--sc-padding-xs)',
        '--sc-font-size': 'var(--mantine-font-size-xs)',
      })}
      className="m_cf365364 mantine-SegmentedControl-root"
      data-size="xs"
      data-with-items-borders="true"
      {...rest}
      role="radiogroup"
    >
      {data.map((item) => {
        const active = item.value === value || undefined;
        return (
          <div key={item.value} className="m_69686b9b mantine-SegmentedControl-control" data-active={active}>
            <input
              className="m_1714d588 mantine-SegmentedControl-input"
              type="radio"
              id={`${name}-${item.value}`}
              data-focus-ring="auto"
              name={name}
              checked={item.value === value}
              value={item.value}
              onChange={() => onChange(item.value)}
            />
            <label
              className="m_1738fcb2 mantine-SegmentedControl-label"
              data-active={active}
              htmlFor={`${name}-${item.value}`}
            >
              <span className="m_78882f40 mantine-SegmentedControl-innerLabel">{item.label}</span>
            </label>
          </div>
        );
      })}
    </div>
  );
}

/** Mantine's `Loader` (size sm, the default oval). */
export function PlainLoader(props: { 'aria-label': string }) {
  return (
    <span
      style={css({ '--loader-size': 'var(--loader-size-sm)' })}
      className="m_5ae2e3c m_b34414df mantine-Loader-root"
      data-size="sm"
      {...props}
    />
  );
}
