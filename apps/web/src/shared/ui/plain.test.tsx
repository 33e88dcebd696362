// @vitest-environment node
/**
 * The first page's Mantine-look components (plain.tsx) render the HTML the Mantine component they stand
 * for renders with the same props, so Mantine's stylesheets draw them the same. Fails when a Mantine
 * upgrade changes a class name, a CSS variable or an attribute.
 */
import {
  ActionIcon,
  Alert,
  Burger,
  Button,
  Card,
  Container,
  Group,
  Loader,
  MantineProvider,
  SegmentedControl,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Link, StaticRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { theme } from './theme';
import {
  PlainActionIcon,
  PlainAlert,
  PlainBurger,
  PlainButton,
  PlainCard,
  PlainContainer,
  PlainGroup,
  PlainLoader,
  PlainSegmented,
  PlainStack,
  PlainText,
  PlainTitle,
} from './plain';

/** The HTML of `el`, with React's generated ids made equal. */
function html(el: ReactElement, mantine: boolean): string {
  const out = renderToStaticMarkup(
    <StaticRouter location="/">
      {mantine ? (
        <MantineProvider theme={theme} withCssVariables={false} withGlobalClasses={false}>
          {el}
        </MantineProvider>
      ) : (
        el
      )}
    </StaticRouter>,
  );
  return out.replace(/_R_[a-zA-Z0-9]+_/g, 'ID');
}

const noop = () => undefined;

const PAIRS: [string, ReactElement, ReactElement][] = [
  [
    'Button subtle gray compact-sm link',
    <Button component={Link} to="/forum" variant="subtle" color="gray" size="compact-sm" data-testid="x">
      Forum
    </Button>,
    <PlainButton to="/forum" variant="subtle" color="gray" size="compact-sm" data-testid="x">
      Forum
    </PlainButton>,
  ],
  [
    'Button filled compact-sm visibleFrom sm',
    <Button size="compact-sm" onClick={noop} data-testid="b" visibleFrom="sm">
      Buy
    </Button>,
    <PlainButton size="compact-sm" onClick={noop} data-testid="b" visibleFrom="sm">
      Buy
    </PlainButton>,
  ],
  [
    'Button light compact-sm',
    <Button size="compact-sm" variant="light" onClick={noop}>
      Login
    </Button>,
    <PlainButton size="compact-sm" variant="light" onClick={noop}>
      Login
    </PlainButton>,
  ],
  [
    'Button default compact-sm',
    <Button size="compact-sm" variant="default" onClick={noop} data-testid="l">
      Log out
    </Button>,
    <PlainButton size="compact-sm" variant="default" onClick={noop} data-testid="l">
      Log out
    </PlainButton>,
  ],
  [
    'Button md filled and default link',
    <>
      <Button size="md" onClick={noop}>
        Buy
      </Button>
      <Button size="md" variant="default" component={Link} to="/forum">
        Forum
      </Button>
    </>,
    <>
      <PlainButton size="md" onClick={noop}>
        Buy
      </PlainButton>
      <PlainButton size="md" variant="default" to="/forum">
        Forum
      </PlainButton>
    </>,
  ],
  [
    'ActionIcon subtle gray link and subtle primary button',
    <>
      <ActionIcon component={Link} to="/login" variant="subtle" color="gray" aria-label="a">
        <span aria-hidden>↗</span>
      </ActionIcon>
      <ActionIcon variant="subtle" onClick={noop} aria-label="left" data-testid="t">
        ‹
      </ActionIcon>
    </>,
    <>
      <PlainActionIcon to="/login" variant="subtle" color="gray" aria-label="a">
        <span aria-hidden>↗</span>
      </PlainActionIcon>
      <PlainActionIcon variant="subtle" onClick={noop} aria-label="left" data-testid="t">
        ‹
      </PlainActionIcon>
    </>,
  ],
  [
    'Burger closed and opened',
    <>
      <Burger hiddenFrom="lg" size="sm" opened={false} onClick={noop} aria-label="m" data-testid="n" />
      <Burger hiddenFrom="lg" size="sm" opened onClick={noop} aria-label="m" data-testid="n" />
    </>,
    <>
      <PlainBurger hiddenFrom="lg" opened={false} onClick={noop} aria-label="m" data-testid="n" />
      <PlainBurger hiddenFrom="lg" opened onClick={noop} aria-label="m" data-testid="n" />
    </>,
  ],
  [
    'Group',
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" component="nav" aria-label="n">
      <Group gap={2} wrap="nowrap" visibleFrom="lg">
        x
      </Group>
      <Group component="li" gap={6} wrap="nowrap" data-testid="i" title="t">
        y
      </Group>
      <Group justify="center" mt="sm">
        z
      </Group>
    </Group>,
    <PlainGroup
      style={{ paddingInline: 'var(--mantine-spacing-md)', height: '100%' }}
      justify="space-between"
      wrap="nowrap"
      component="nav"
      aria-label="n"
    >
      <PlainGroup gap={2} wrap="nowrap" visibleFrom="lg">
        x
      </PlainGroup>
      <PlainGroup component="li" gap={6} wrap="nowrap" data-testid="i" title="t">
        y
      </PlainGroup>
      <PlainGroup justify="center" style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
        z
      </PlainGroup>
    </PlainGroup>,
  ],
  [
    'Stack, Container, Title',
    <Container size="lg" py="xl">
      <Stack gap="xl">
        <Stack gap="sm" align="center" ta="center" data-testid="h">
          <Title order={1}>T</Title>
          <Title order={3} size="h4" mb="xs">
            S
          </Title>
        </Stack>
      </Stack>
    </Container>,
    <PlainContainer>
      <PlainStack gap="xl">
        <PlainStack gap="sm" align="center" style={{ textAlign: 'center' }} data-testid="h">
          <PlainTitle order={1}>T</PlainTitle>
          <PlainTitle order={3} size="h4" style={{ marginBottom: 'var(--mantine-spacing-xs)' }}>
            S
          </PlainTitle>
        </PlainStack>
      </PlainStack>
    </PlainContainer>,
  ],
  [
    'Text',
    <>
      <Text fw={700} c="yellow" component="span">
        BYTX
      </Text>
      <Text size="lg" c="dimmed" maw={720}>
        sub
      </Text>
      <Text size="xs" c="dimmed" visibleFrom="md" data-testid="u">
        a@b.c
      </Text>
      <Text size="sm" c="red" data-testid="c" data-direction="down">
        -1%
      </Text>
      <Text component="footer" ta="center" size="sm" c="dimmed" py="lg" data-testid="f">
        ©
      </Text>
    </>,
    <>
      <PlainText fw={700} c="yellow" component="span">
        BYTX
      </PlainText>
      <PlainText size="lg" c="dimmed" style={{ maxWidth: 'calc(45rem * var(--mantine-scale))' }}>
        sub
      </PlainText>
      <PlainText size="xs" c="dimmed" visibleFrom="md" data-testid="u">
        a@b.c
      </PlainText>
      <PlainText size="sm" c="red" data-testid="c" data-direction="down">
        -1%
      </PlainText>
      <PlainText
        component="footer"
        size="sm"
        c="dimmed"
        style={{ paddingBlock: 'var(--mantine-spacing-lg)', textAlign: 'center' }}
        data-testid="f"
      >
        ©
      </PlainText>
    </>,
  ],
  [
    'Alert',
    <Alert color="blue" variant="light" title="T" data-testid="a">
      B
    </Alert>,
    <PlainAlert color="blue" title="T" data-testid="a">
      B
    </PlainAlert>,
  ],
  [
    'Card',
    <Card withBorder padding="lg" data-testid="c">
      x
    </Card>,
    <PlainCard data-testid="c">x</PlainCard>,
  ],
  [
    'SegmentedControl',
    <SegmentedControl
      size="xs"
      value="en"
      onChange={noop}
      aria-label="Language"
      data-testid="lang-switch"
      data={[
        { value: 'en', label: 'EN' },
        { value: 'es', label: 'ES' },
      ]}
    />,
    <PlainSegmented
      value="en"
      onChange={noop}
      aria-label="Language"
      data-testid="lang-switch"
      data={[
        { value: 'en', label: 'EN' },
        { value: 'es', label: 'ES' },
      ]}
    />,
  ],
  ['Loader', <Loader size="sm" aria-label="Loading" />, <PlainLoader aria-label="Loading" />],
];

/** Attributes in a canonical order and style declarations sorted: the order never changes a drawing. */
function canonical(markup: string): string {
  return markup.replace(
    /<([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*(\/?)>/g,
    (_m, tag: string, attrs: string, close: string) => {
      const list = [...attrs.matchAll(/([a-z-]+)(?:="([^"]*)")?/g)].map(([, k, v]) => {
        if (k === 'style' && v) {
          v = v.split(';').filter(Boolean).sort().join(';');
        }
        if (k === 'class' && v) v = v.split(' ').filter(Boolean).sort().join(' ');
        return v === undefined ? k! : `${k}="${v}"`;
      });
      return `<${tag}${list.length ? ' ' : ''}${list.sort().join(' ')}${close}>`;
    },
  );
}

describe('plain components draw as Mantine', () => {
  for (const [name, mantine, plain] of PAIRS) {
    it(name, () => {
      expect(canonical(html(plain, false))).toBe(canonical(html(mantine, true)));
    });
  }
});
