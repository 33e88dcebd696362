import { Button, Menu } from '@mantine/core';

/** One entry of a row's actions menu; `danger` ones (Stop) come last, in red, after a divider. */
export interface RowAction {
  name: string;
  label: string;
  onClick: () => void;
  danger?: boolean;
  disabled?: boolean;
}

/**
 * The row's actions as Mantine's Menu: its own chunk (Menu brings Popover and floating-ui, about 20 KB
 * gzip), loaded when a row's 'Actions' button is first pressed or pointed at (BotRowParts.tsx
 * `RowActionsMenu`), so a bot screen's first paint carries none of it (issue 39: `/bot-dca`'s first
 * visit). Opened at once when it replaces the button that was pressed.
 */
export default function RowMenuPart({
  menuTestId,
  label,
  text,
  actions,
  disabled,
  defaultOpened,
}: {
  menuTestId: string;
  label: string;
  text: string;
  actions: readonly (RowAction & { testId: string })[];
  disabled?: boolean | undefined;
  defaultOpened: boolean;
}) {
  const plain = actions.filter((a) => !a.danger);
  const danger = actions.filter((a) => a.danger);
  return (
    <Menu position="bottom-end" withinPortal shadow="md" defaultOpened={defaultOpened}>
      <Menu.Target>
        <Button
          size="xs"
          variant="default"
          disabled={disabled}
          aria-label={label}
          aria-haspopup="menu"
          rightSection={<span aria-hidden="true">▾</span>}
          data-testid={menuTestId}
        >
          {text}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {plain.map((a) => (
          <Menu.Item key={a.name} onClick={a.onClick} disabled={a.disabled} data-testid={a.testId}>
            {a.label}
          </Menu.Item>
        ))}
        {plain.length > 0 && danger.length > 0 && <Menu.Divider />}
        {danger.map((a) => (
          <Menu.Item
            key={a.name}
            color="red"
            onClick={a.onClick}
            disabled={a.disabled}
            data-testid={a.testId}
          >
            {a.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
