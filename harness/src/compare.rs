//! Predictions against measurements.
