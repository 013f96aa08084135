"""A tiny hand-written game system and catalogue for the limits that depend on the rest of
the roster (ruling D9) and the census's moot conditions: our own names and invented numbers,
no rules text.

- "Riders": at most 2 in the roster; 5 when the roster holds the hidden "Boss Flag" category,
  which the Boss's Warlord entry carries (or in a Crusade force).
- "Guards": none unless the army has exactly 1 Captain (then 1) or 2 Captains (then 2).
- "Twin A": at most 1; none when the roster has "Twin B".
- "Brutes": an error in a Boarding Actions force with 3 Captains (a ``count`` group): its
  conditions are moot in a matched-play list.
- "Swarm": at most 1, one more per Captain (a repeated modifier): not read, the core rule.
- "Lucky Charm": an enhancement of First Host the data hides once the roster holds one (the
  core rule's "each enhancement once").
"""

from __future__ import annotations

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-l" name="L System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-fac" name="Faction: Limiters"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
    <forceEntry id="f-crusade" name="Crusade Force"/>
    <forceEntry id="f-boarding" name="Boarding Actions" hidden="true"/>
  </forceEntries>
  <sharedSelectionEntries>
    <selectionEntry id="e-warlord" name="Warlord" type="upgrade"/>
  </sharedSelectionEntries>
</gameSystem>
"""

CAT = b"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-l" name="Limiters"
  revision="2" battleScribeVersion="2.03" library="false" gameSystemId="sys-l"
  gameSystemRevision="1" type="catalogue">
  <categoryEntries>
    <categoryEntry id="c-flag" name="Boss Flag" hidden="true"/>
  </categoryEntries>
  <selectionEntries>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-a" name="First Host" type="upgrade"/>
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
        <entryLink id="l-boss-enh" name="Enhancements" targetId="g-enh" type="selectionEntryGroup"/>
        <entryLink id="l-boss-warlord" name="Warlord" targetId="e-warlord" type="selectionEntry">
          <categoryLinks>
            <categoryLink id="cl3" targetId="c-flag" primary="false"/>
          </categoryLinks>
        </entryLink>
      </entryLinks>
      <costs><cost name="pts" typeId="pts" value="70"/></costs>
    </selectionEntry>
    <selectionEntry id="e-captain" name="Captain" type="model">
      <categoryLinks>
        <categoryLink id="cl4" targetId="c-char" primary="true"/>
        <categoryLink id="cl5" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="80"/></costs>
    </selectionEntry>
    <selectionEntry id="e-riders" name="Riders" type="model">
      <categoryLinks>
        <categoryLink id="cl6" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <constraints>
        <constraint id="k-riders" type="max" value="2" field="selections" scope="roster"
          shared="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="5" field="k-riders">
          <conditionGroups>
            <conditionGroup type="or">
              <conditions>
                <condition type="instanceOf" value="1" field="forces" scope="force"
                  childId="f-crusade" shared="true"/>
                <condition type="atLeast" value="1" field="selections" scope="roster"
                  childId="c-flag" shared="true" includeChildSelections="true"/>
              </conditions>
            </conditionGroup>
          </conditionGroups>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="40"/></costs>
    </selectionEntry>
    <selectionEntry id="e-guards" name="Guards" type="model">
      <categoryLinks>
        <categoryLink id="cl7" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <constraints>
        <constraint id="k-guards" type="max" value="0" field="selections" scope="roster"
          shared="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="1" field="k-guards">
          <conditions>
            <condition type="equalTo" value="1" field="selections" scope="roster"
              childId="e-captain" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="2" field="k-guards">
          <conditions>
            <condition type="equalTo" value="2" field="selections" scope="roster"
              childId="e-captain" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="50"/></costs>
    </selectionEntry>
    <selectionEntry id="e-twin-a" name="Twin A" type="model">
      <categoryLinks>
        <categoryLink id="cl8" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <constraints>
        <constraint id="k-twin" type="max" value="1" field="selections" scope="roster"
          shared="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="0" field="k-twin">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="roster"
              childId="e-twin-b" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="30"/></costs>
    </selectionEntry>
    <selectionEntry id="e-twin-b" name="Twin B" type="model">
      <categoryLinks>
        <categoryLink id="cl9" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="30"/></costs>
    </selectionEntry>
    <selectionEntry id="e-brutes" name="Brutes" type="model">
      <categoryLinks>
        <categoryLink id="cl10" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="add" field="error" value="stand-in message">
          <conditionGroups>
            <conditionGroup type="and">
              <conditions>
                <condition type="instanceOf" value="1" field="selections" scope="force"
                  childId="f-boarding" shared="true"/>
              </conditions>
              <conditionGroups>
                <conditionGroup type="count" min="3">
                  <conditions>
                    <condition type="atLeast" value="1" field="selections" scope="force"
                      childId="e-captain" shared="true" includeChildSelections="true"/>
                    <condition type="atLeast" value="2" field="selections" scope="force"
                      childId="e-captain" shared="true" includeChildSelections="true"/>
                  </conditions>
                </conditionGroup>
              </conditionGroups>
            </conditionGroup>
          </conditionGroups>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="60"/></costs>
    </selectionEntry>
    <selectionEntry id="e-swarm" name="Swarm" type="model">
      <categoryLinks>
        <categoryLink id="cl11" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <constraints>
        <constraint id="k-swarm" type="max" value="1" field="selections" scope="roster"
          shared="true"/>
      </constraints>
      <modifiers>
        <modifier type="increment" value="1" field="k-swarm">
          <repeats>
            <repeat value="1" repeats="1" field="selections" scope="roster" childId="e-captain"
              shared="true" roundUp="false"/>
          </repeats>
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="roster"
              childId="e-captain" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="20"/></costs>
    </selectionEntry>
  </selectionEntries>
  <sharedSelectionEntryGroups>
    <selectionEntryGroup id="g-enh" name="First Host Enhancements">
      <selectionEntries>
        <selectionEntry id="x-charm" name="Lucky Charm" type="upgrade">
          <modifiers>
            <modifier type="set" field="hidden" value="true">
              <conditionGroups>
                <conditionGroup type="and">
                  <conditions>
                    <condition type="atLeast" value="1" field="selections" scope="roster"
                      childId="x-charm" shared="true" includeChildSelections="true"/>
                    <condition type="lessThan" value="1" field="selections" scope="parent"
                      childId="x-charm" shared="true" includeChildSelections="true"/>
                  </conditions>
                </conditionGroup>
              </conditionGroups>
            </modifier>
          </modifiers>
          <costs><cost name="pts" typeId="pts" value="15"/></costs>
        </selectionEntry>
      </selectionEntries>
    </selectionEntryGroup>
  </sharedSelectionEntryGroups>
</catalogue>
"""

FILES = [("l.gst", GST), ("limiters.cat", CAT)]
