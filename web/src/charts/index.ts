/**
 * The charts, loaded only by pages that draw one: Mantine charts and recharts stay out of the first page's
 * JavaScript (docs/web.md: under 250 KB gzipped).
 */
import { lazy } from 'react';

export const DurationChart = lazy(() => import('./DurationChart'));
export const TrendChart = lazy(() => import('./TrendChart'));
export const BarsChart = lazy(() => import('./BarsChart'));
export const Sparkline = lazy(() => import('./Sparkline'));
