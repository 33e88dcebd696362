/**
 * The Mantine CSS of the first page: the base layers, the components every other component builds
 * on (Mantine's "reused" list), and what the shell (header, drawer, menus, sign-in dropdown, modals,
 * ticker, notifications) and the landing page render. In the order of `@mantine/core/styles.css`, so
 * a component's own rules come after those of the components it is built on. The other pages' rules
 * are in `./pages.ts`, loaded with each lazy page (`../lazyPage.tsx`). About 20 KB gzip instead of the
 * whole 36 KB file.
 */
import '@mantine/core/styles/baseline.css';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/ScrollArea.css';
import '@mantine/core/styles/UnstyledButton.css';
import '@mantine/core/styles/VisuallyHidden.css';
import '@mantine/core/styles/Paper.css';
import '@mantine/core/styles/Overlay.css';
import '@mantine/core/styles/Popover.css';
import '@mantine/core/styles/Loader.css';
import '@mantine/core/styles/ActionIcon.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/Group.css';
import '@mantine/core/styles/ModalBase.css';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/Flex.css';
import '@mantine/core/styles/FloatingIndicator.css';
import '@mantine/core/styles/Alert.css';
import '@mantine/core/styles/Text.css';
import '@mantine/core/styles/Anchor.css';
import '@mantine/core/styles/Burger.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Container.css';
import '@mantine/core/styles/Drawer.css';
import '@mantine/core/styles/Menu.css';
import '@mantine/core/styles/Modal.css';
import '@mantine/core/styles/Notification.css';
import '@mantine/core/styles/PasswordInput.css';
import '@mantine/core/styles/Tooltip.css';
import '@mantine/core/styles/SegmentedControl.css';
import '@mantine/core/styles/SimpleGrid.css';
import '@mantine/core/styles/Stack.css';
import '@mantine/core/styles/Title.css';
// Other Mantine packages' styles come after all of @mantine/core's (Mantine's import-order rule).
import '@mantine/notifications/styles.css';
// What Mantine's provider would write at run time: the theme's variables, the visibleFrom classes.
import './theme.css';
import '../shell/layout.css';
