"""A tiny hand-written game system and catalogue for the wargear interplay inside a unit and
the Crusade-only entries (rulings D15, D16): our own names and invented numbers, no rules text.

- "Experience" (a shared entry linked only from each unit's "Crusade" group, which the data
  hides unless a Crusade force is in the roster) and "Old Scar" (inside a "Battle Scars"
  group): a matched-play list never holds them, so a condition counting them counts 0.
- "Raiders" (3-6 models): "Heavy gun" is hidden while the unit has fewer than 6 models;
  "Melta gun" is hidden while the unit has no "Scope" (the unit's own choices); "Flamer" is
  hidden on a model that has no "Pack" (a per-model condition: only the unit's count is
  recorded, so only "the unit has no Pack at all" is certain); "Axe" is hidden on a model that
  has a "Shield" (per model: cannot be certain from the unit's counts, not read); "Veteran
  blade" is hidden unless the unit has "Experience" (a Crusade-only entry: always hidden in
  matched play, so it is not offered at all); "Plasma gun" (at most 2 in the unit) allows one
  fewer while the unit has a "Heavy gun"; "Grenade" (at most 1 in the unit) allows one more
  in a unit of 6 or more; the "Special" option of each model ("Sniper rifle") is closed
  (at most 0) while the unit has a "Melta gun".
- The "Hound" category (ruling D17): none required, at least 2 Hound units in the "Hunt Pack"
  detachment.
"""

from __future__ import annotations

import re

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-i" name="I System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-fac" name="Faction: Interplay"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
    <forceEntry id="f-crusade" name="Crusade Force"/>
  </forceEntries>
  <sharedSelectionEntries>
    <selectionEntry id="e-xp" name="Experience" type="upgrade"/>
    <selectionEntry id="e-warlord" name="Warlord" type="upgrade"/>
  </sharedSelectionEntries>
  <sharedSelectionEntryGroups>
    <selectionEntryGroup id="g-scars" name="Battle Scars">
      <selectionEntries>
        <selectionEntry id="e-scar" name="Old Scar" type="upgrade"/>
      </selectionEntries>
    </selectionEntryGroup>
  </sharedSelectionEntryGroups>
</gameSystem>
"""

_CAT = """<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-i" name="Interplay"
  revision="2" battleScribeVersion="2.03" library="false" gameSystemId="sys-i"
  gameSystemRevision="1" type="catalogue">
  <categoryEntries>
    <categoryEntry id="c-hound" name="Hound">
      <constraints>
        <constraint id="k-hounds" type="min" value="-1" field="selections" scope="force"
          includeChildSelections="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="2" field="k-hounds">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="force"
              childId="d-hunt" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
    </categoryEntry>
  </categoryEntries>
  <selectionEntries>
    <selectionEntry id="e-hound" name="Hound" type="model">
      <categoryLinks>
        <categoryLink id="cl-h1" targetId="c-fac" primary="false"/>
        <categoryLink id="cl-h2" targetId="c-hound" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="30"/></costs>
    </selectionEntry>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-a" name="First Host" type="upgrade"/>
            <selectionEntry id="d-hunt" name="Hunt Pack" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-boss" name="Boss" type="model">
      <categoryLinks>
        <categoryLink id="cl1" targetId="c-char" primary="true"/>
        <categoryLink id="cl2" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <entryLinks>
        <entryLink id="l-boss-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry"/>
      </entryLinks>
      <costs><cost name="pts" typeId="pts" value="70"/></costs>
    </selectionEntry>
    <selectionEntry id="e-raiders" name="Raiders" type="unit">
      <categoryLinks>
        <categoryLink id="cl3" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-crusade" name="Crusade">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="lessThan" value="1" field="forces" scope="roster"
                  childId="f-crusade" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
          <entryLinks>
            <entryLink id="l-xp" name="Experience" targetId="e-xp" type="selectionEntry"/>
          </entryLinks>
        </selectionEntryGroup>
        <selectionEntryGroup id="g-wrap" name="Scars">
          <entryLinks>
            <entryLink id="l-scars" name="Battle Scars" targetId="g-scars"
              type="selectionEntryGroup"/>
          </entryLinks>
        </selectionEntryGroup>
      </selectionEntryGroups>
      <selectionEntries>
        <selectionEntry id="e-raider" name="Raider" type="model">
          <constraints>
            <constraint id="k-r-min" type="min" value="3" field="selections" scope="parent"/>
            <constraint id="k-r-max" type="max" value="6" field="selections" scope="parent"/>
          </constraints>
          <profiles>
            <profile id="p-raider" name="Raider" typeName="Unit">
              <characteristics>
                <characteristic name="M">6"</characteristic>
                <characteristic name="T">4</characteristic>
                <characteristic name="SV">3+</characteristic>
                <characteristic name="W">2</characteristic>
                <characteristic name="LD">6+</characteristic>
                <characteristic name="OC">2</characteristic>
              </characteristics>
            </profile>
          </profiles>
          <selectionEntries>
            <selectionEntry id="e-pack" name="Pack" type="upgrade">
      <!--gun Pack-->
              <constraints>
                <constraint id="k-pack" type="max" value="1" field="selections" scope="parent"/>
              </constraints>
            </selectionEntry>
            <selectionEntry id="e-shield" name="Shield" type="upgrade">
      <!--gun Shield-->
              <constraints>
                <constraint id="k-shield" type="max" value="1" field="selections" scope="parent"/>
              </constraints>
            </selectionEntry>
            <selectionEntry id="e-flamer" name="Flamer" type="upgrade">
      <!--gun Flamer-->
              <constraints>
                <constraint id="k-flamer" type="max" value="1" field="selections" scope="parent"/>
              </constraints>
              <modifiers>
                <modifier type="set" value="true" field="hidden">
                  <conditions>
                    <condition type="lessThan" value="1" field="selections" scope="parent"
                      childId="e-pack" includeChildSelections="true"/>
                  </conditions>
                </modifier>
              </modifiers>
            </selectionEntry>
            <selectionEntry id="e-axe" name="Axe" type="upgrade">
      <!--gun Axe-->
              <constraints>
                <constraint id="k-axe" type="max" value="1" field="selections" scope="parent"/>
              </constraints>
              <modifiers>
                <modifier type="set" value="true" field="hidden">
                  <conditions>
                    <condition type="atLeast" value="1" field="selections" scope="parent"
                      childId="e-shield" includeChildSelections="true"/>
                  </conditions>
                </modifier>
              </modifiers>
            </selectionEntry>
          </selectionEntries>
          <selectionEntryGroups>
            <selectionEntryGroup id="g-special" name="Special">
              <constraints>
                <constraint id="k-special" type="max" value="1" field="selections"
                  scope="parent"/>
              </constraints>
              <modifiers>
                <modifier type="set" value="0" field="k-special">
                  <conditions>
                    <condition type="atLeast" value="1" field="selections" scope="unit"
                      childId="e-melta" includeChildSelections="true"/>
                  </conditions>
                </modifier>
              </modifiers>
              <selectionEntries>
                <selectionEntry id="e-sniper" name="Sniper rifle" type="upgrade">
                  <!--gun Sniper rifle-->
                </selectionEntry>
              </selectionEntries>
            </selectionEntryGroup>
          </selectionEntryGroups>
          <costs><cost name="pts" typeId="pts" value="20"/></costs>
        </selectionEntry>
      </selectionEntries>
      <entryLinks>
        <entryLink id="l-scope" name="Scope" targetId="e-scope" type="selectionEntry"/>
        <entryLink id="l-heavy" name="Heavy gun" targetId="e-heavy" type="selectionEntry">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="lessThan" value="6" field="selections" scope="parent"
                  childId="model" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </entryLink>
        <entryLink id="l-melta" name="Melta gun" targetId="e-melta" type="selectionEntry">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="lessThan" value="1" field="selections" scope="unit"
                  childId="e-scope" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </entryLink>
        <entryLink id="l-plasma" name="Plasma gun" targetId="e-plasma" type="selectionEntry">
          <constraints>
            <constraint id="k-plasma" type="max" value="2" field="selections" scope="parent"/>
          </constraints>
          <modifiers>
            <modifier type="decrement" value="1" field="k-plasma">
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="unit"
                  childId="e-heavy" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </entryLink>
        <entryLink id="l-grenade" name="Grenade" targetId="e-grenade" type="selectionEntry">
          <constraints>
            <constraint id="k-grenade" type="max" value="1" field="selections" scope="unit"/>
          </constraints>
          <modifiers>
            <modifier type="increment" value="1" field="k-grenade">
              <conditions>
                <condition type="atLeast" value="6" field="selections" scope="parent"
                  childId="model" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </entryLink>
        <entryLink id="l-blade" name="Veteran blade" targetId="e-blade" type="selectionEntry">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="lessThan" value="1" field="selections" scope="unit"
                  childId="e-xp" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
        </entryLink>
      </entryLinks>
    </selectionEntry>
  </selectionEntries>
  <sharedSelectionEntries>
    <selectionEntry id="e-scope" name="Scope" type="upgrade">
      <!--gun Scope-->
      <constraints>
        <constraint id="k-scope" type="max" value="1" field="selections" scope="parent"/>
      </constraints>
    </selectionEntry>
    <selectionEntry id="e-heavy" name="Heavy gun" type="upgrade">
      <!--gun Heavy gun-->
      <constraints>
        <constraint id="k-heavy" type="max" value="1" field="selections" scope="parent"/>
      </constraints>
      <costs><cost name="pts" typeId="pts" value="10"/></costs>
    </selectionEntry>
    <selectionEntry id="e-melta" name="Melta gun" type="upgrade">
      <!--gun Melta gun-->
      <constraints>
        <constraint id="k-melta" type="max" value="2" field="selections" scope="parent"/>
      </constraints>
    </selectionEntry>
    <selectionEntry id="e-plasma" name="Plasma gun" type="upgrade">
      <!--gun Plasma gun-->
    </selectionEntry>
    <selectionEntry id="e-grenade" name="Grenade" type="upgrade">
      <!--gun Grenade-->
    </selectionEntry>
    <selectionEntry id="e-blade" name="Veteran blade" type="upgrade">
      <!--gun Veteran blade-->
      <constraints>
        <constraint id="k-blade" type="max" value="1" field="selections" scope="parent"/>
      </constraints>
    </selectionEntry>
  </sharedSelectionEntries>
</catalogue>
"""


def _gun(match: re.Match[str]) -> str:
    """A plain ranged weapon profile (invented numbers) named after the entry."""
    name = match.group(1)
    pid = "p-" + name.lower().replace(" ", "-")
    return (
        f'<profiles><profile id="{pid}" name="{name}" typeName="Ranged Weapons">'
        '<characteristics><characteristic name="Range">12"</characteristic>'
        '<characteristic name="A">1</characteristic><characteristic name="BS">4+</characteristic>'
        '<characteristic name="S">4</characteristic><characteristic name="AP">0</characteristic>'
        '<characteristic name="D">1</characteristic><characteristic name="Keywords">-'
        "</characteristic></characteristics></profile></profiles>"
    )


CAT = re.sub(r"<!--gun ([^-]+)-->", _gun, _CAT).encode()

FILES = [("interplay.gst", GST), ("interplay.cat", CAT)]
