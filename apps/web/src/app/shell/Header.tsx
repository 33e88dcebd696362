import { Group } from '@mantine/core';
import { Link } from 'react-router';

export function Header() {
  return (
    <Group h="100%" px="md" component="nav">
      <Link to="/">BYTX</Link>
    </Group>
  );
}
