// Test helper (not installed): prints aoe-stat --prometheus output for a
// synthetic model (two targets, three paths, drops, odd label characters),
// so tests/host/prometheus.sh can check it with promtool without a module.
// With --no-module: the output when the module is not loaded.
#include <cstring>
#include <iostream>

#include "aoe_netlink.h"
#include "stat/prometheus.hpp"

using namespace aoe;

namespace {

Path path(const char* ifname, uint8_t last, uint32_t state, uint32_t rtt_us)
{
    Path p;
    p.ifindex = 3;
    p.ifname = ifname;
    p.mac = {0x00, 0x11, 0x22, 0x33, 0x44, last};
    p.state = state;
    p.bufcnt = 16;
    p.fwver = 0x4019;
    p.maxsect = 17;
    p.mtu = 9000;
    p.payload = 8704;
    p.rtt_avg_us = rtt_us;
    p.rtt_dev_us = rtt_us / 4;
    p.rtt_min_us = rtt_us / 2;
    p.rto_us = 200000;
    p.window = 16;
    p.outstanding = 3;
    p.last_rx_ms = 12;
    p.counters.frames_sent = 1000;
    p.counters.frames_received = 990;
    p.counters.retransmits = 10;
    p.counters.timeouts = 4;
    p.counters.lost = 0;
    p.counters.bytes_read = 4u << 20;
    p.counters.bytes_written = 1u << 20;
    p.counters.read_reqs = 100;
    p.counters.write_reqs = 20;
    p.counters.ata_errors = 0;
    p.counters.drops = Drops{{AOE_DROP_LATE, 5}};
    return p;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--no-module") == 0) {
        std::cout << format_prometheus(nullptr, {});
        return 0;
    }
    ModuleInfo m;
    m.version = "0.1.0";
    m.iflist = "eth0 eth1";
    m.deadsecs = 60;
    m.maxout = 128;
    m.ntargets = 2;
    m.generation = 7;
    m.drops = Drops{{AOE_DROP_LATE, 5}, {AOE_DROP_NO_TARGET, 2}};
    m.interfaces = {{2, "eth0", 9000, true}, {3, "eth1", 1500, false}};

    Target a;
    a.shelf = 1;
    a.slot = 2;
    a.device = "e1.2";
    a.state = AOE_TARGET_STATE_UP;
    a.sectors = 2097152;
    a.payload = 8704;
    a.model = "vblade \"quoted\" \\ model";
    a.serial = "SN\n1";
    a.firmware = "1.0";
    a.outstanding = 6;
    a.last_rx_ms = 12;
    a.paths = {path("eth0", 0x55, AOE_PATH_STATE_UP, 250), path("eth1", 0x66, AOE_PATH_STATE_DOWN, 1200)};
    a.counters = a.paths[0].counters;

    Target b;  // just discovered: most values unknown
    b.shelf = 7;
    b.slot = 0;
    b.device = "e7.0";
    b.state = AOE_TARGET_STATE_INIT;
    b.paths = {path("eth0", 0x77, AOE_PATH_STATE_UP, 90)};
    b.paths[0].counters = Counters{};

    std::cout << format_prometheus(&m, {a, b});
    return 0;
}
