/**
 * The frame of every signed-in page: the header (project, its pages, theme, account) and the page below.
 * Keyboard: every control is reachable with Tab; a "Skip to content" link comes first.
 */
import {
  ActionIcon,
  AppShell,
  Avatar,
  Box,
  Group,
  Menu,
  Select,
  Text,
  Tooltip,
  UnstyledButton,
  VisuallyHidden,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { IconLogout, IconMoon, IconSun } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useNavigate, useParams } from '@tanstack/react-router';
import { sessionQuery } from '../api/queries';
import { useSignOut } from '../api/session';
import classes from './AppLayout.module.css';

const PROJECT_PAGES = [
  { to: '/projects/$projectId/runs', label: 'Runs' },
  { to: '/projects/$projectId/dashboard', label: 'Dashboard' },
  { to: '/projects/$projectId/analytics', label: 'Analytics' },
  { to: '/projects/$projectId/explorer', label: 'Explorer' },
  { to: '/projects/$projectId/flaky', label: 'Flaky tests' },
  { to: '/projects/$projectId/errors', label: 'Errors' },
  { to: '/projects/$projectId/quarantine', label: 'Quarantine' },
  { to: '/projects/$projectId/cases', label: 'Test cases' },
  { to: '/projects/$projectId/releases', label: 'Manual runs' },
  { to: '/projects/$projectId/organization', label: 'Organization' },
  { to: '/projects/$projectId/settings', label: 'Settings' },
] as const;

export function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const next = scheme === 'dark' ? 'light' : 'dark';
  useHotkeys([['mod+J', () => setColorScheme(next)]]);
  return (
    <Tooltip label={`Switch to the ${next} theme (Ctrl+J)`}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={`Switch to the ${next} theme`}
        onClick={() => setColorScheme(next)}
      >
        {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

function AccountMenu() {
  const { data: session } = useQuery(sessionQuery());
  const navigate = useNavigate();
  const signOut = useSignOut({ onSettled: () => void navigate({ to: '/sign-in' }) });
  const user = session?.user;
  const name = user ? `${user.firstName} ${user.lastName}`.trim() : (session?.token.name ?? 'Signed in');
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton className={classes.account}>
          <Group gap={8} wrap="nowrap">
            <VisuallyHidden>Account:</VisuallyHidden>
            <Avatar size={28} radius="xl" color="blue" name={name} aria-hidden />
            <Text size="sm" visibleFrom="xl" lineClamp={1}>
              {name}
            </Text>
            <VisuallyHidden hiddenFrom="xl">{name}</VisuallyHidden>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        {user ? <Menu.Label>{user.email}</Menu.Label> : null}
        <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => signOut.mutate()}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function ProjectSwitcher({ projectId }: { projectId: string }) {
  const { data: session } = useQuery(sessionQuery());
  const navigate = useNavigate();
  const projects = session?.projects ?? [];
  const current = projects.find((project) => project.id === projectId);
  const groups = [...new Set(projects.map((project) => project.organizationName))].map((group) => ({
    group,
    items: projects
      .filter((project) => project.organizationName === group)
      .map((project) => ({ value: project.id, label: project.name })),
  }));
  return (
    <Select
      aria-label={`Project: ${current?.name ?? projectId}`}
      size="xs"
      w={180}
      data={groups}
      value={projectId}
      allowDeselect={false}
      searchable={projects.length > 8}
      onChange={(value) => {
        if (value) void navigate({ to: '/projects/$projectId/runs', params: { projectId: value } });
      }}
    />
  );
}

export function AppLayout() {
  const { projectId } = useParams({ strict: false });
  return (
    <AppShell header={{ height: 52 }} padding="md">
      <a href="#main" className={classes.skip}>
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap" className={classes.start}>
            <Link to="/projects" className={classes.brand} aria-label="Verdict: your projects">
              <img src="/favicon.svg" alt="" width={22} height={22} />
              {/* The name gives way to the pages' links below 1408 px; the logo and its label stay. */}
              <Text fw={700} visibleFrom="xl">
                Verdict
              </Text>
            </Link>
            {projectId ? (
              <>
                <ProjectSwitcher projectId={projectId} />
                <Box component="nav" aria-label="Project pages" className={classes.nav}>
                  {PROJECT_PAGES.map((page) => (
                    <Link
                      key={page.to}
                      to={page.to}
                      params={{ projectId }}
                      className={classes.link}
                      activeProps={{ 'aria-current': 'page' }}
                      activeOptions={{ includeSearch: false }}
                    >
                      {page.label}
                    </Link>
                  ))}
                </Box>
              </>
            ) : null}
          </Group>
          <Group gap="xs" wrap="nowrap" className={classes.end}>
            <ThemeToggle />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main id="main" tabIndex={-1}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
