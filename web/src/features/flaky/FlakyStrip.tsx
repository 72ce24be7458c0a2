/** A test's day-by-day strip over the window: one cell a day, marked on the days it was flaky. */
import { Box, Tooltip } from '@mantine/core';
import classes from './FlakyPage.module.css';

export function FlakyStrip({ windowDays, flakyOn }: { windowDays: string[]; flakyOn: ReadonlySet<string> }) {
  return (
    <Box
      className={classes.strip}
      role="img"
      aria-label={`Flaky on ${flakyOn.size} of the last ${windowDays.length} days`}
    >
      {windowDays.map((day) => (
        <Tooltip key={day} label={`${day}: ${flakyOn.has(day) ? 'flaky' : 'not flaky'}`}>
          <span className={classes.day} data-flaky={flakyOn.has(day) ? 'true' : undefined} />
        </Tooltip>
      ))}
    </Box>
  );
}
