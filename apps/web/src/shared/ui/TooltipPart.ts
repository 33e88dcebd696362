// Mantine's Tooltip alone, the chunk ./LazyTooltip.tsx loads.
export { Tooltip as default } from '@mantine/core';
