/** The test's artifacts: screenshots inline, videos playable, traces in the trace viewer, other files to download. */
import { Anchor, Box, Button, Group, Image, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconDownload, IconRoute } from '@tabler/icons-react';
import type { TestBundle } from '../../api/queries';
import { Section } from './Section';
import classes from './TestPage.module.css';

type Artifacts = TestBundle['artifacts'];

function Media({ screenshots, videos }: Pick<Artifacts, 'screenshots' | 'videos'>) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      {screenshots.map((shot) =>
        shot.url ? (
          <Anchor
            key={shot.artifactId}
            href={shot.url}
            target="_blank"
            rel="noreferrer"
            aria-label={`Open ${shot.name} full size`}
          >
            <Image src={shot.url} alt={`Screenshot: ${shot.name}`} radius="sm" className={classes.shot} />
            <Text size="xs" c="dimmed">
              {shot.name}
            </Text>
          </Anchor>
        ) : (
          <Text key={shot.artifactId} size="sm" c="dimmed">
            {shot.name}: not uploaded
          </Text>
        ),
      )}
      {videos.map((video) =>
        video.url ? (
          <Box key={video.artifactId}>
            <video
              src={video.url}
              controls
              preload="metadata"
              className={classes.video}
              aria-label={`Video: ${video.name}`}
            />
            <Text size="xs" c="dimmed">
              {video.name}
            </Text>
          </Box>
        ) : null,
      )}
    </SimpleGrid>
  );
}

function Files({ bundle }: { bundle: TestBundle }) {
  const { traces, other } = bundle.artifacts;
  return (
    <Group gap="xs">
      {traces.map((trace) =>
        trace.url ? (
          <Button
            key={trace.artifactId}
            component="a"
            href={bundle.links.traceViewerUrl ?? trace.url}
            target="_blank"
            rel="noreferrer"
            size="xs"
            variant="light"
            leftSection={<IconRoute size={14} />}
          >
            Open trace · {trace.name}
          </Button>
        ) : null,
      )}
      {other.map((file) =>
        file.url ? (
          <Button
            key={file.artifactId}
            component="a"
            href={file.url}
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} />}
          >
            {file.name}
          </Button>
        ) : null,
      )}
    </Group>
  );
}

export function ArtifactsSection({ bundle }: { bundle: TestBundle }) {
  const { screenshots, videos, traces, other } = bundle.artifacts;
  if (screenshots.length + videos.length + traces.length + other.length === 0) return null;
  return (
    <Section title="Artifacts">
      <Stack>
        {screenshots.length + videos.length > 0 ? <Media screenshots={screenshots} videos={videos} /> : null}
        {traces.length + other.length > 0 ? <Files bundle={bundle} /> : null}
      </Stack>
    </Section>
  );
}
