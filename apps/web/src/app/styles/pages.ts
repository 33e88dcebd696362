/**
 * The Mantine CSS the other pages use beyond the shell's (`./shell.ts`), in the order of
 * `@mantine/core/styles.css`. Loaded with every lazy page (`../lazyPage.tsx`), so it comes after the
 * shell's CSS; the components these build on (Input, Popover, UnstyledButton ...) are all in the
 * shell's set, so each rule still follows the rules it overrides. A page that starts using a Mantine
 * component not listed here or in `./shell.ts` must add its file here (`test/first-page-split.test.ts`
 * checks it).
 */
import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/InlineInput.css';
import '@mantine/core/styles/CheckboxIndicator.css';
import '@mantine/core/styles/Checkbox.css';
import '@mantine/core/styles/Badge.css';
import '@mantine/core/styles/Center.css';
import '@mantine/core/styles/Code.css';
import '@mantine/core/styles/Divider.css';
import '@mantine/core/styles/Grid.css';
import '@mantine/core/styles/Image.css';
import '@mantine/core/styles/List.css';
import '@mantine/core/styles/NumberInput.css';
import '@mantine/core/styles/Pagination.css';
import '@mantine/core/styles/Progress.css';
import '@mantine/core/styles/RadioIndicator.css';
import '@mantine/core/styles/Radio.css';
import '@mantine/core/styles/Skeleton.css';
import '@mantine/core/styles/Switch.css';
import '@mantine/core/styles/Table.css';
import '@mantine/core/styles/Tabs.css';
import '@mantine/core/styles/ThemeIcon.css';
