"""A tiny hand-written game system and catalogue for the keywords a choice removes (ruling
D24) and those an Enhancement gives its bearer (ruling D25): our own names and invented
numbers, no rules text.

- "Champion" (a Character on foot, one model: the root entry is the unit) links the
  "Specialisms" group straight from its root entry:
  - "Bike" adds Mounted and removes Infantry (scope ``parent``: the unit);
  - "Skyboard" adds Fly and removes Infantry (scope ``root-entry``);
  - "Helmet" removes Infantry from itself (no scope: not the unit's), "Banner" removes the
    Faction keyword (not read), "Rebreather" removes Infantry only while the army holds a Seer
    (a condition on the rest of the roster: not read).
  It also offers "Psychic Staff", which the data hides unless the unit is a Psyker.
- "Mob" (a Character unit of a Boss and 4 Riders) links the Specialisms and the
  Enhancements below its Boss model: there ``parent`` is the Boss, not the unit.
- "Foot Squad" (Infantry) and "Seer" (a Psyker Character).
- The army may hold at most 2 Infantry units and 1 Psyker unit (the categories' limits).
- Enhancements of First Host: "Warp Touch" makes its bearer a Psyker (scope ``parent``; also a
  hidden display flag and Fly on the model, neither read) and is hidden on a Psyker; "Foot
  Charm" is for Infantry only; "Winged Crown" adds Fly to the root entry (the unit, wherever
  the group is linked).
"""

from __future__ import annotations

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-k" name="K System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-mounted" name="Mounted"/>
    <categoryEntry id="c-fly" name="Fly"/>
    <categoryEntry id="c-fac" name="Faction: Riders"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
  </forceEntries>
  <sharedSelectionEntries>
    <selectionEntry id="e-warlord" name="Warlord" type="upgrade"/>
  </sharedSelectionEntries>
</gameSystem>
"""

CAT = b"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-k" name="Riders"
  revision="1" battleScribeVersion="2.03" library="false" gameSystemId="sys-k"
  gameSystemRevision="1" type="catalogue">
  <categoryEntries>
    <categoryEntry id="c-flag" name="Display Flag" hidden="true"/>
    <categoryEntry id="c-inf" name="Infantry">
      <constraints>
        <constraint id="k-inf" type="max" value="2" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
    </categoryEntry>
    <categoryEntry id="c-psyker" name="Psyker">
      <constraints>
        <constraint id="k-psyker" type="max" value="1" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
    </categoryEntry>
  </categoryEntries>
  <selectionEntries>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-first" name="First Host" type="upgrade"/>
            <selectionEntry id="d-second" name="Second Host" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-champion" name="Champion" type="model">
      <categoryLinks>
        <categoryLink id="cl1" targetId="c-char" primary="true"/>
        <categoryLink id="cl2" targetId="c-inf" primary="false"/>
        <categoryLink id="cl3" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <profiles>
        <profile id="p-champion" name="Champion" typeName="Unit">
          <characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
            <characteristic name="SV">3+</characteristic><characteristic name="W">4</characteristic>
            <characteristic name="LD">6+</characteristic>
            <characteristic name="OC">1</characteristic>
          </characteristics>
        </profile>
      </profiles>
      <entryLinks>
        <entryLink id="l-ch-spec" name="Specialisms" targetId="g-spec" type="selectionEntryGroup"/>
        <entryLink id="l-ch-enh" name="First Host Enhancements" targetId="g-enh"
          type="selectionEntryGroup"/>
        <entryLink id="l-ch-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry"/>
      </entryLinks>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-staff" name="Staves">
          <constraints>
            <constraint id="k-staff" type="max" value="1" field="selections" scope="parent"
              shared="true"/>
          </constraints>
          <selectionEntries>
            <selectionEntry id="w-staff" name="Psychic Staff" type="upgrade">
              <modifiers>
                <modifier type="set" value="true" field="hidden">
                  <conditions>
                    <condition type="notInstanceOf" value="1" field="selections" scope="ancestor"
                      childId="c-psyker" shared="true"/>
                  </conditions>
                </modifier>
              </modifiers>
              <costs><cost name="pts" typeId="pts" value="5"/></costs>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
      <costs><cost name="pts" typeId="pts" value="60"/></costs>
    </selectionEntry>
    <selectionEntry id="e-mob" name="Mob" type="unit">
      <categoryLinks>
        <categoryLink id="cl4" targetId="c-char" primary="true"/>
        <categoryLink id="cl5" targetId="c-inf" primary="false"/>
        <categoryLink id="cl6" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <profiles>
        <profile id="p-mob" name="Mob" typeName="Unit">
          <characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
            <characteristic name="SV">3+</characteristic><characteristic name="W">4</characteristic>
            <characteristic name="LD">6+</characteristic>
            <characteristic name="OC">1</characteristic>
          </characteristics>
        </profile>
      </profiles>
      <entryLinks>
        <entryLink id="l-mob-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry"/>
      </entryLinks>
      <selectionEntries>
        <selectionEntry id="m-boss" name="Boss" type="model">
          <constraints>
            <constraint id="k-boss-min" type="min" value="1" field="selections" scope="parent"
              shared="true"/>
            <constraint id="k-boss-max" type="max" value="1" field="selections" scope="parent"
              shared="true"/>
          </constraints>
          <entryLinks>
            <entryLink id="l-boss-spec" name="Specialisms" targetId="g-spec"
              type="selectionEntryGroup"/>
            <entryLink id="l-boss-enh" name="First Host Enhancements" targetId="g-enh"
              type="selectionEntryGroup"/>
          </entryLinks>
          <costs><cost name="pts" typeId="pts" value="40"/></costs>
        </selectionEntry>
        <selectionEntry id="m-rider" name="Rider" type="model">
          <constraints>
            <constraint id="k-rider-min" type="min" value="4" field="selections" scope="parent"
              shared="true"/>
            <constraint id="k-rider-max" type="max" value="4" field="selections" scope="parent"
              shared="true"/>
          </constraints>
          <costs><cost name="pts" typeId="pts" value="15"/></costs>
        </selectionEntry>
      </selectionEntries>
    </selectionEntry>
    <selectionEntry id="e-squad" name="Foot Squad" type="unit">
      <categoryLinks>
        <categoryLink id="cl7" targetId="c-inf" primary="false"/>
        <categoryLink id="cl8" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <profiles>
        <profile id="p-squad" name="Trooper" typeName="Unit">
          <characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
            <characteristic name="SV">3+</characteristic><characteristic name="W">4</characteristic>
            <characteristic name="LD">6+</characteristic>
            <characteristic name="OC">1</characteristic>
          </characteristics>
        </profile>
      </profiles>
      <selectionEntries>
        <selectionEntry id="m-trooper" name="Trooper" type="model">
          <constraints>
            <constraint id="k-tr-min" type="min" value="5" field="selections" scope="parent"
              shared="true"/>
            <constraint id="k-tr-max" type="max" value="5" field="selections" scope="parent"
              shared="true"/>
          </constraints>
          <costs><cost name="pts" typeId="pts" value="10"/></costs>
        </selectionEntry>
      </selectionEntries>
    </selectionEntry>
    <selectionEntry id="e-seer" name="Seer" type="model">
      <categoryLinks>
        <categoryLink id="cl9" targetId="c-char" primary="true"/>
        <categoryLink id="cl10" targetId="c-psyker" primary="false"/>
        <categoryLink id="cl11" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <profiles>
        <profile id="p-seer" name="Seer" typeName="Unit">
          <characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
            <characteristic name="SV">3+</characteristic><characteristic name="W">4</characteristic>
            <characteristic name="LD">6+</characteristic>
            <characteristic name="OC">1</characteristic>
          </characteristics>
        </profile>
      </profiles>
      <entryLinks>
        <entryLink id="l-seer-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry"/>
      </entryLinks>
      <costs><cost name="pts" typeId="pts" value="55"/></costs>
    </selectionEntry>
  </selectionEntries>
  <sharedSelectionEntryGroups>
    <selectionEntryGroup id="g-spec" name="Specialisms">
      <constraints>
        <constraint id="k-spec" type="max" value="1" field="selections" scope="parent"
          shared="true"/>
      </constraints>
      <selectionEntries>
        <selectionEntry id="s-bike" name="Bike" type="upgrade">
          <modifiers>
            <modifier type="add" value="c-mounted" field="category" scope="parent"/>
            <modifier type="remove" value="c-inf" field="category" scope="parent"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="10"/></costs>
        </selectionEntry>
        <selectionEntry id="s-sky" name="Skyboard" type="upgrade">
          <modifiers>
            <modifier type="add" value="c-fly" field="category" scope="root-entry"/>
            <modifier type="remove" value="c-inf" field="category" scope="root-entry"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="15"/></costs>
        </selectionEntry>
        <selectionEntry id="s-helmet" name="Helmet" type="upgrade">
          <modifiers>
            <modifier type="remove" value="c-inf" field="category"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="5"/></costs>
        </selectionEntry>
        <selectionEntry id="s-banner" name="Banner" type="upgrade">
          <modifiers>
            <modifier type="remove" value="c-fac" field="category" scope="parent"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="5"/></costs>
        </selectionEntry>
        <selectionEntry id="s-rebreather" name="Rebreather" type="upgrade">
          <modifiers>
            <modifier type="remove" value="c-inf" field="category" scope="parent">
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="roster"
                  childId="e-seer" shared="true" includeChildSelections="true"/>
              </conditions>
            </modifier>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="5"/></costs>
        </selectionEntry>
      </selectionEntries>
    </selectionEntryGroup>
    <selectionEntryGroup id="g-enh" name="First Host Enhancements">
      <modifiers>
        <modifier type="set" value="true" field="hidden">
          <conditions>
            <condition type="lessThan" value="1" field="selections" scope="roster"
              childId="d-first" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <selectionEntries>
        <selectionEntry id="x-warp" name="Warp Touch" type="upgrade">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="instanceOf" value="1" field="selections" scope="ancestor"
                  childId="c-psyker" shared="true"/>
              </conditions>
            </modifier>
            <modifier type="add" value="c-psyker" field="category" scope="parent"/>
            <modifier type="add" value="c-flag" field="category" scope="parent"/>
            <modifier type="add" value="c-fly" field="category" scope="model"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="15"/></costs>
        </selectionEntry>
        <selectionEntry id="x-foot" name="Foot Charm" type="upgrade">
          <modifiers>
            <modifier type="set" value="true" field="hidden">
              <conditions>
                <condition type="notInstanceOf" value="1" field="selections" scope="ancestor"
                  childId="c-inf" shared="true"/>
              </conditions>
            </modifier>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="10"/></costs>
        </selectionEntry>
        <selectionEntry id="x-crown" name="Winged Crown" type="upgrade">
          <modifiers>
            <modifier type="add" value="c-fly" field="category" scope="root-entry"/>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="20"/></costs>
        </selectionEntry>
      </selectionEntries>
    </selectionEntryGroup>
  </sharedSelectionEntryGroups>
</catalogue>
"""

FILES = [("k.gst", GST), ("riders.cat", CAT)]
