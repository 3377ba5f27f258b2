-- blocks.network is checked once per write (FOR KEY SHARE on the networks row) instead of by a
-- foreign key whose per-row check cost ~40% of COPY's CPU.
ALTER TABLE "blocks" DROP CONSTRAINT "blocks_network_networks_name_fk";
