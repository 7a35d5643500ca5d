// Unit tests for target identity, conflict memory and candidate admission
// (kmod/aoe_ident.c).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "aoe_ident.h"

namespace {
constexpr uint64_t s = 1000000000ULL;  // ns

aoe_identity ident(const char* serial, const char* model, uint64_t sectors, bool lba48)
{
    aoe_identity id{};
    std::strncpy(id.serial, serial, sizeof(id.serial) - 1);
    std::strncpy(id.model, model, sizeof(id.model) - 1);
    std::strcpy(id.firmware, "V25");
    id.sectors = sectors;
    id.lba48 = lba48;
    return id;
}

const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 0xa};
const uint8_t mac_b[6] = {2, 0, 0, 0, 0, 0xb};
}  // namespace

TEST_CASE("ident: serial, model, LBA48 and capacity make the identity; firmware does not")
{
    aoe_identity cur = ident("1.2:host", "vblade", 524288, true);
    aoe_identity same = cur;
    std::strcpy(same.firmware, "V26");  // a firmware update
    same.wcache = !cur.wcache;          // cache settings change at run time
    CHECK(aoe_ident_check(&cur, &same, true) == AOE_IDV_MATCH);

    aoe_identity other = ident("1.2:impostor", "vblade", 524288, true);
    CHECK(aoe_ident_check(&cur, &other, true) == AOE_IDV_SERIAL);
    CHECK(aoe_ident_check(&cur, &other, false) == AOE_IDV_SERIAL);
    other = ident("1.2:host", "other model", 524288, true);
    CHECK(aoe_ident_check(&cur, &other, true) == AOE_IDV_MODEL);
    other = ident("1.2:host", "vblade", 524288, false);
    CHECK(aoe_ident_check(&cur, &other, true) == AOE_IDV_LBA48);
    other = ident("1.2:host", "vblade", 524289, true);
    CHECK(aoe_ident_check(&cur, &other, true) == AOE_IDV_CAPACITY);
    // a revalidate over a verified path: resize and mode are judged later
    CHECK(aoe_ident_check(&cur, &other, false) == AOE_IDV_MATCH);
    other = ident("1.2:host", "vblade", 524288, false);
    CHECK(aoe_ident_check(&cur, &other, false) == AOE_IDV_MATCH);
    CHECK(std::string(aoe_ident_verdict_name(AOE_IDV_CAPACITY)) == "capacity");
}

TEST_CASE("ident: another capacity with the same serial, model and LBA48 is a resize, not a conflict")
{
    aoe_identity cur = ident("1.2:host", "vblade", 524288, true);
    aoe_identity bigger = ident("1.2:host", "vblade", 2 * 524288, true);
    aoe_identity smaller = ident("1.2:host", "vblade", 1024, true);
    CHECK(aoe_ident_same_device(aoe_ident_check(&cur, &bigger, true)));
    CHECK(aoe_ident_same_device(aoe_ident_check(&cur, &smaller, true)));
    CHECK(aoe_ident_same_device(aoe_ident_check(&cur, &cur, true)));
    // another device, whatever its size
    aoe_identity other = ident("1.2:impostor", "vblade", 2 * 524288, true);
    CHECK_FALSE(aoe_ident_same_device(aoe_ident_check(&cur, &other, true)));
    other = ident("1.2:host", "other model", 524288, true);
    CHECK_FALSE(aoe_ident_same_device(aoe_ident_check(&cur, &other, true)));
    // a mode change is not a resize (the disk's addressing never changes)
    other = ident("1.2:host", "vblade", 2 * 524288, false);
    CHECK_FALSE(aoe_ident_same_device(aoe_ident_check(&cur, &other, true)));
}

TEST_CASE("ident: a refused path is remembered per interface and MAC, then forgotten")
{
    aoe_conflicts c{};
    aoe_identity imp = ident("1.2:impostor", "vblade", 524288, true);
    uint64_t t0 = 1000 * s;

    CHECK(aoe_conflict_find(&c, 3, mac_a, t0) == nullptr);
    const aoe_conflict* e = aoe_conflict_add(&c, 3, mac_a, &imp, AOE_IDV_SERIAL, t0);
    REQUIRE(e != nullptr);
    CHECK(std::string(e->serial) == "1.2:impostor");
    CHECK(aoe_conflict_find(&c, 3, mac_a, t0 + 1) == e);
    // the same MAC on another interface is another path: not remembered
    CHECK(aoe_conflict_find(&c, 4, mac_a, t0 + 1) == nullptr);
    CHECK(aoe_conflict_find(&c, 3, mac_b, t0 + 1) == nullptr);
    CHECK(aoe_conflict_count(&c, t0 + 1) == 1);
    // expired: neither matched nor counted (not shown as current)
    uint64_t later = t0 + AOE_CONFLICT_TTL_NS;
    CHECK(aoe_conflict_find(&c, 3, mac_a, later) == nullptr);
    CHECK(aoe_conflict_count(&c, later) == 0);
    // refused again after expiry: a new entry in the same slot, new age
    e = aoe_conflict_add(&c, 3, mac_a, &imp, AOE_IDV_SERIAL, later);
    CHECK(e->since_ns == later);
    CHECK(aoe_conflict_count(&c, later) == 1);
}

TEST_CASE("ident: the conflict memory is bounded; a full one forgets the oldest")
{
    aoe_conflicts c{};
    aoe_identity imp = ident("x", "y", 1, true);
    uint8_t mac[6] = {2, 0, 0, 0, 0, 0};

    for (int i = 0; i < AOE_CONFLICT_SLOTS; i++) {
        mac[5] = (uint8_t)i;
        aoe_conflict_add(&c, 1, mac, &imp, AOE_IDV_SERIAL, (uint64_t)(i + 1) * s);
    }
    CHECK(aoe_conflict_count(&c, 10 * s) == AOE_CONFLICT_SLOTS);
    mac[5] = 99;  // a spoofer's fifth MAC pushes out the first refused
    aoe_conflict_add(&c, 1, mac, &imp, AOE_IDV_SERIAL, 10 * s);
    CHECK(aoe_conflict_count(&c, 10 * s) == AOE_CONFLICT_SLOTS);
    mac[5] = 0;
    CHECK(aoe_conflict_find(&c, 1, mac, 10 * s) == nullptr);
    mac[5] = 1;
    CHECK(aoe_conflict_find(&c, 1, mac, 10 * s) != nullptr);
    mac[5] = 99;
    CHECK(aoe_conflict_find(&c, 1, mac, 10 * s) != nullptr);
    // a known entry refused again is refreshed, not duplicated
    const aoe_conflict* e = aoe_conflict_add(&c, 1, mac, &imp, AOE_IDV_SERIAL, 20 * s);
    CHECK(e->since_ns == 10 * s);
    CHECK(e->until_ns == 20 * s + AOE_CONFLICT_TTL_NS);
}

TEST_CASE("ident: candidate checks are rate-limited (burst, then one per refill)")
{
    aoe_cand_bucket b{};
    uint64_t t = 5 * s;

    for (int i = 0; i < AOE_CAND_BURST; i++)
        CHECK(aoe_cand_take(&b, t));
    CHECK_FALSE(aoe_cand_take(&b, t));
    CHECK_FALSE(aoe_cand_take(&b, t + AOE_CAND_REFILL_NS - 1));
    CHECK(aoe_cand_take(&b, t + AOE_CAND_REFILL_NS));
    CHECK_FALSE(aoe_cand_take(&b, t + AOE_CAND_REFILL_NS));
    // a spoofer taking every token gets one per refill, however long it goes on
    int got = 0;
    for (uint64_t now = t + AOE_CAND_REFILL_NS + AOE_CAND_REFILL_NS / 10;
         now <= t + 101 * AOE_CAND_REFILL_NS; now += AOE_CAND_REFILL_NS / 10)
        got += aoe_cand_take(&b, now);
    CHECK(got == 100);
    // idle long: the burst again, not more
    uint64_t idle = t + 1000 * s;
    got = 0;
    for (int i = 0; i < 10; i++)
        got += aoe_cand_take(&b, idle);
    CHECK(got == AOE_CAND_BURST);
}
