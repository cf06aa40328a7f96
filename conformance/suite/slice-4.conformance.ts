// Slice 4 of the conformance suite (see slices.ts). Run through `npm run conformance`.
import { defineConformanceSlice } from './define.js';
import { SLICE_COUNT } from './slices.js';

defineConformanceSlice(4, SLICE_COUNT);
