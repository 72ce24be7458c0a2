import { Anchor, type AnchorProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import type { ComponentPropsWithRef } from 'react';

function MantineAnchor(props: AnchorProps & ComponentPropsWithRef<'a'>) {
  return <Anchor {...props} />;
}

/** Mantine's Anchor as a typed router link: `to`, `params` and `search` checked against the routes. */
export const AnchorLink = createLink(MantineAnchor);
