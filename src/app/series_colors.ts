/**
 * The charts' series colours, cycled: one palette for the Train view's live charts and the curve
 * charts of Results and Compare. A module of its own so that a view can pick colours without
 * loading uPlot (the chart modules load after the first paint).
 */

/** Colours for series, cycled (distinguishable, colour-blind friendly order). */
export const SERIES_COLORS = ['#2f6db5', '#d9822b', '#1a7f37', '#b42318', '#7048e8', '#0b7285', '#a61e4d', '#5c940d'];
