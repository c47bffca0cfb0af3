import { Module } from '@nestjs/common';
import { ResultsController } from './results.controller.js';

/**
 * Campaign results (docs/campaign-results.md): `GET /api/campaigns/{id}/results`, computed from the
 * runs' members and recipients and the tracked events at the moment of the call. What it adds to
 * goals and KPIs (their checks, the KPIs' measured values) is RESULTS_GOAL_MEASURES, which the
 * composition root provides to the marketing module (GOAL_MEASURES).
 */
@Module({ controllers: [ResultsController] })
export class ResultsModule {}
