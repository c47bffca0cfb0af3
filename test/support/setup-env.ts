// Quiet logs and a fixed signing key for every e2e test process.
process.env.LOG_LEVEL ??= 'silent';
process.env.JWT_SECRET ??= 'e2e-test-signing-key-0123456789abcdef';
process.env.ADMIN_EMAIL ??= 'admin@example.com';
process.env.ADMIN_PASSWORD ??= 'admin-password-123';
process.env.SUPPRESSION_KEY ??= 'e2e-test-suppression-key-0123456789';
process.env.DESTINATION_SECRET_KEY ??= 'e2e-test-destination-key-0123456789';
